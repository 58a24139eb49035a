/* Tests of the probes: the bandwidth probe on a small buffer gives positive, ordered rates for several
 * thread counts, the compute probe gives positive rates for every family this CPU has, the commands
 * refuse bad input, and the JSON writer and CLI parsers do what they say.
 * Prints one line per failure and ends with "N passed, M failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "bench_flags.h"
#include "bigbuf.h"
#include "bw_loops.h"
#include "cli.h"
#include "compute_loops.h"
#include "commands.h"
#include "cpu.h"
#include "json.h"
#include "measure.h"
#include "pool.h"
#include "probe_bw.h"
#include "probe_compute.h"

static int passed, failed;

static void check(int ok, const char *what, const char *expected, const char *actual) {
    if (ok) {
        passed++;
        return;
    }
    failed++;
    printf("FAIL %s: expected %s, got %s\n", what, expected, actual);
}

static void check_int(const char *what, long long expected, long long actual) {
    char e[32], a[32];
    snprintf(e, sizeof e, "%lld", expected);
    snprintf(a, sizeof a, "%lld", actual);
    check(expected == actual, what, e, a);
}

/* A rate in the unit it claims (GB/s or GMAC/s of a machine, not bytes or a thousandth): a probe that
 * forgot a 1e9, the passes or the threads falls outside. */
static void check_rates(const char *what, double lo, double hi) {
    char a[96];
    snprintf(a, sizeof a, "min %.3g, max %.3g", lo, hi);
    check(lo > 1e-3 && hi < 1e5, what, "rates between 0.001 and 100000", a);
}

/* A reported rate can never be below what the wall clock around the whole call allows. */
static void check_not_below_wall(const char *what, double rate, double work, double wall_seconds) {
    char e[96], a[64];
    snprintf(e, sizeof e, "at least %.4g (work / wall time of the call)", work / wall_seconds * 1e-9);
    snprintf(a, sizeof a, "%.4g", rate);
    check(rate >= work / wall_seconds * 1e-9 * 0.999, what, e, a);
}

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = calloc(1, 1 << 16);
    if (buf) fread(buf, 1, (1 << 16) - 1, f);
    fclose(f);
    return buf;
}

static void tmp_path(char *buf, size_t len, const char *name) {
    const char *dir = getenv("TMPDIR");
    snprintf(buf, len, "%s/ciot_test_probes_%ld_%s", dir && *dir ? dir : "/tmp", (long)getpid(), name);
}

/* ---- JSON writer ---- */

static void test_json(void) {
    char path[512], tmp[600];
    tmp_path(path, sizeof path, "doc.json");
    ciot_json *j;
    check_int("json open", CIOT_OK, ciot_json_open(path, &j));
    ciot_json_begin_object(j);
    ciot_json_kv_string(j, "s", "a\"b\\c\n\t\x01/é");
    ciot_json_kv_number(j, "x", 0.1);
    ciot_json_kv_fixed(j, "f", 2.5, 2);
    ciot_json_kv_int(j, "i", -42);
    ciot_json_kv_bool(j, "t", 1);
    ciot_json_key(j, "n");
    ciot_json_null(j);
    ciot_json_kv_number(j, "nan", 0.0 / 0.0);
    ciot_json_key(j, "a");
    ciot_json_begin_array(j);
    ciot_json_int(j, 1);
    ciot_json_begin_object(j);
    ciot_json_end_object(j);
    ciot_json_begin_array(j);
    ciot_json_end_array(j);
    ciot_json_end_array(j);
    ciot_json_end_object(j);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    check_int("json: the temporary file exists before close", 0, access(tmp, F_OK));
    check_int("json: the target does not exist before close", -1, access(path, F_OK));
    check_int("json close", CIOT_OK, ciot_json_close(j));
    check_int("json: the temporary file is gone after close", -1, access(tmp, F_OK));
    char *got = slurp(path);
    const char *want = "{\n"
                       "  \"s\": \"a\\\"b\\\\c\\n\\t\\u0001/é\",\n"
                       "  \"x\": 0.10000000000000001,\n"
                       "  \"f\": 2.50,\n"
                       "  \"i\": -42,\n"
                       "  \"t\": true,\n"
                       "  \"n\": null,\n"
                       "  \"nan\": null,\n"
                       "  \"a\": [\n"
                       "    1,\n"
                       "    {},\n"
                       "    []\n"
                       "  ]\n"
                       "}\n";
    check(got && !strcmp(got, want), "json document", want, got ? got : "(no file)");
    free(got);
    remove(path);

    /* Misuse is an error and leaves no file behind. */
    check_int("json open (misuse)", CIOT_OK, ciot_json_open(path, &j));
    ciot_json_begin_object(j);
    ciot_json_int(j, 3); /* a value without a key */
    check_int("json: value without key is CIOT_E_ARG", CIOT_E_ARG, ciot_json_status(j));
    check_int("json: close after misuse is CIOT_E_ARG", CIOT_E_ARG, ciot_json_close(j));
    check_int("json: no target after misuse", -1, access(path, F_OK));
    check_int("json: no temporary after misuse", -1, access(tmp, F_OK));

    check_int("json open (unclosed)", CIOT_OK, ciot_json_open(path, &j));
    ciot_json_begin_array(j);
    check_int("json: close with an open array is CIOT_E_ARG", CIOT_E_ARG, ciot_json_close(j));
    check_int("json: no target after unclosed document", -1, access(path, F_OK));

    check_int("json: open in a missing directory is CIOT_E_IO", CIOT_E_IO,
              ciot_json_open("/nonexistent-dir-ciot/x.json", &j));
}

/* ---- CLI parsers ---- */

static void test_cli(void) {
    size_t s = 0;
    check_int("size 4096", CIOT_OK, ciot_parse_size("4096", &s));
    check_int("size 4096 value", 4096, (long long)s);
    check_int("size 64K", CIOT_OK, ciot_parse_size("64K", &s));
    check_int("size 64K value", 65536, (long long)s);
    check_int("size 1G", CIOT_OK, ciot_parse_size("1G", &s));
    check_int("size 1G value", 1LL << 30, (long long)s);
    check_int("size 1GiB", CIOT_OK, ciot_parse_size("1GiB", &s));
    check_int("size 999T parses", CIOT_OK, ciot_parse_size("999T", &s));
    const char *bad_sizes[] = {"", "abc", "-1", "1X", "1GG", "0x10", "99999999999999999999", "16777216T"};
    for (size_t i = 0; i < sizeof bad_sizes / sizeof *bad_sizes; i++) {
        char what[64];
        snprintf(what, sizeof what, "size '%s' is rejected", bad_sizes[i]);
        check_int(what, CIOT_E_ARG, ciot_parse_size(bad_sizes[i], &s));
    }
    int v[16], n = 0;
    /* the low-outlier rule (stats.h): strictly below half the median; no median, no outlier */
    check_int("outlier 4.9 of 426.8", 1, ciot_low_outlier(4.9, 426.8));
    check_int("outlier at exactly half", 0, ciot_low_outlier(0.5, 1.0));
    check_int("outlier just below half", 1, ciot_low_outlier(0.4999, 1.0));
    check_int("outlier without samples", 0, ciot_low_outlier(0, 0));
    /* count only (vals NULL): the length of a list too long to store, ranges summed, no cap */
    check_int("count 1-300", CIOT_OK, ciot_parse_int_list("1-300", 1, 1024, NULL, 0, &n));
    check_int("count 1-300 is 300", 300, n);
    check_int("count 1-300,5,7-8", CIOT_OK, ciot_parse_int_list("1-300,5,7-8", 1, 1024, NULL, 0, &n));
    check_int("count 1-300,5,7-8 is 303", 303, n);
    check_int("count refuses what the list refuses", CIOT_E_ARG, ciot_parse_int_list("0,1", 1, 1024, NULL, 0, &n));
    check_int("list 1,2", CIOT_OK, ciot_parse_int_list("1,2", 1, 64, v, 16, &n));
    check_int("list 1,2 count", 2, n);
    check_int("list 1-3,8", CIOT_OK, ciot_parse_int_list("1-3,8", 1, 64, v, 16, &n));
    check_int("list 1-3,8 values", 1, n == 4 && v[0] == 1 && v[2] == 3 && v[3] == 8);
    const char *bad_lists[] = {"0", "", "a", "1,,2", "2-1", "1,", "65", "1-20"};
    for (size_t i = 0; i < sizeof bad_lists / sizeof *bad_lists; i++) {
        char what[64];
        snprintf(what, sizeof what, "list '%s' is rejected", bad_lists[i]);
        check_int(what, CIOT_E_ARG, ciot_parse_int_list(bad_lists[i], 1, 64, v, 16, &n));
    }
    int x;
    check_int("int 5", CIOT_OK, ciot_parse_int("5", 1, 10, &x));
    check_int("int 0 below range", CIOT_E_ARG, ciot_parse_int("0", 1, 10, &x));
    check_int("int 5x", CIOT_E_ARG, ciot_parse_int("5x", 1, 10, &x));
    const char *words[] = {"a", "a,b", "ab,c,d", "", ",", "a,", ",a", "a,,b"};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
        char what[64];
        snprintf(what, sizeof what, "word list '%s' has an empty item", words[i]);
        check_int(what, i >= 3, ciot_list_has_empty_item(words[i]));
    }
}

/* Messages stay one line whatever file names and values they hold. */
static void test_quote(void) {
    char q[64], why[64];
    check(!strcmp(ciot_quote("a\nb\tc\r\x01\x7f\\d\xc3\xa9", q, sizeof q), "a\\nb\\tc\\r\\x01\\x7f\\d\xc3\xa9"),
          "quote escapes control characters only", "a\\nb\\tc\\r\\x01\\x7f\\d\xc3\xa9", q);
    check(!strcmp(ciot_quote("ab\n", q, 4), "ab"), "quote cuts short at a whole escape", "ab", q);
    ciot_error(CIOT_E_IO, why, sizeof why, "cannot open %s: %s", "x\ny", "gone");
    check(!strcmp(why, "cannot open x\\ny: gone"), "ciot_error escapes what it formats", "cannot open x\\ny: gone", why);
}

/* The Google Benchmark flags ciot bench passes on: the values Google Benchmark 1.7 takes, nothing else. */
static void test_gb_flags(void) {
    const char *good[] = {"--benchmark_format=json", "--benchmark_out_format=csv", "--benchmark_color=auto",
                          "--benchmark_color=No", "--benchmark_counters_tabular", "--benchmark_counters_tabular=OFF",
                          "--benchmark_list_tests=t", "--benchmark_context=a=b,c=", "--benchmark_time_unit=us",
                          "--benchmark_out=x.json", "--benchmark_filter=t2p"};
    const char *bad[] = {"--benchmark_format=xml", "--benchmark_format=JSON", "--benchmark_format", "--benchmark_out=",
                         "--benchmark_color=purple", "--benchmark_color=", "--benchmark_time_unit=xs",
                         "--benchmark_time_unit=", "--benchmark_counters_tabular=maybe", "--benchmark_counters_tabular=",
                         "--benchmark_context=a", "--benchmark_context=a=b,", "--benchmark_context==b",
                         "--benchmark_context=a=b=c", "--benchmark_foo=1", "--benchmark_formatx=json",
                         "--benchmark_repetitions=2", "--benchmark_min_time=1", "--benchmark_perf_counters=CYCLES"};
    char why[256], what[96];
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        snprintf(what, sizeof what, "GB flag %s is taken", good[i]);
        check_int(what, CIOT_OK, ciot_bench_check_gb_flag(good[i], why, sizeof why));
    }
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(what, sizeof what, "GB flag %s is refused", bad[i]);
        why[0] = 0;
        check_int(what, CIOT_E_ARG, ciot_bench_check_gb_flag(bad[i], why, sizeof why));
        snprintf(what, sizeof what, "GB flag %s: the reason is one line", bad[i]);
        check(why[0] && !strchr(why, '\n'), what, "one line", why);
    }
}

/* ---- the bandwidth probe ---- */

static void test_bw(void) {
    const size_t bytes = 4 << 20;
    for (int threads = 1; threads <= 3; threads++) {
        ciot_pool_opts o = {.threads = threads, .pin = 1};
        ciot_pool *p;
        char what[128];
        if (ciot_pool_create(CIOT_POOL_PERSISTENT, &o, &p) != CIOT_OK) {
            check_int("bw: pool", CIOT_OK, -1);
            continue;
        }
        void *buf;
        check_int("bw: buffer", CIOT_OK, ciot_bw_buffer_alloc(p, bytes, threads & 1, &buf));
        for (int k = 0; k < CIOT_BW_N_KINDS; k++) {
            ciot_bw_result r;
            const uint64_t t0 = ciot_now_ns();
            ciot_status st = ciot_bw_measure(p, (ciot_bw_kind)k, buf, bytes, 3, &r);
            const double wall = (double)(ciot_now_ns() - t0) * 1e-9;
            snprintf(what, sizeof what, "bw %s, %d threads: status", ciot_bw_kind_name(k), threads);
            check_int(what, CIOT_OK, st);
            if (st != CIOT_OK) continue;
            snprintf(what, sizeof what, "bw %s, %d threads: rates", ciot_bw_kind_name(k), threads);
            check_rates(what, r.min_gbs, r.max_gbs);
            snprintf(what, sizeof what, "bw %s, %d threads: slowest repetition against the wall clock", ciot_bw_kind_name(k), threads);
            check_not_below_wall(what, r.min_gbs, (double)r.bytes_per_pass * r.passes, wall);
            snprintf(what, sizeof what, "bw %s, %d threads: declared bytes per pass", ciot_bw_kind_name(k), threads);
            /* the copies: half read + half stored; update: every byte read and written back */
            check_int(what, (long long)bytes * (k == CIOT_BW_UPDATE ? 2 : 1), (long long)r.bytes_per_pass);
            snprintf(what, sizeof what, "bw %s: result threads and reps", ciot_bw_kind_name(k));
            check_int(what, 1, r.threads == threads && r.reps == 3 && r.passes >= 1);
            if (threads == 1) printf("info: bw %s, 1 thread, %s: %.2f GB/s median (cache-resident buffer)\n",
                                     ciot_bw_kind_name(k), r.impl, r.median_gbs);
        }
        double gbs = 0;
        int passes = 0;
        const uint64_t t0 = ciot_now_ns();
        check_int("bw: one paired sample", CIOT_OK, ciot_bw_sample(p, buf, bytes, 0.02, 4096, &gbs, &passes));
        const double wall = (double)(ciot_now_ns() - t0) * 1e-9;
        check_not_below_wall("bw: a sample against the wall clock", gbs, (double)bytes * passes, wall);
        check_int("bw: a 20 ms sample takes whole passes until it lasts 20 ms", 1, passes >= 1 && wall >= 0.02);
        check_int("bw: a sample refuses a NULL buffer", CIOT_E_ARG, ciot_bw_sample(p, NULL, bytes, 0.02, 0, &gbs, NULL));
        /* the rulers of ops that write: an update sample counts each byte twice, so at one pass per sample it
         * cannot be below 2 x bytes over the wall clock; a copy's, the whole buffer (half each way) */
        for (int k = CIOT_BW_COPY; k <= CIOT_BW_COPY_NT; k++) {
            const uint64_t w0 = ciot_now_ns();
            snprintf(what, sizeof what, "bw: one paired %s sample", ciot_bw_kind_name(k));
            check_int(what, CIOT_OK, ciot_bw_sample_kind(p, (ciot_bw_kind)k, buf, bytes, 0.0, 4096, &gbs, &passes));
            const double w = (double)(ciot_now_ns() - w0) * 1e-9;
            snprintf(what, sizeof what, "bw: a %s sample against the wall clock", ciot_bw_kind_name(k));
            check_not_below_wall(what, gbs, (double)bytes * (k == CIOT_BW_UPDATE ? 2 : 1) * passes, w);
        }
        check_int("bw: a sample refuses an unknown kind", CIOT_E_ARG,
                  ciot_bw_sample_kind(p, (ciot_bw_kind)CIOT_BW_N_KINDS, buf, bytes, 0.0, 0, &gbs, NULL));
        ciot_bw_result r;
        check_int("bw: measure_for with no minimum duration", CIOT_OK,
                  ciot_bw_measure_for(p, CIOT_BW_READ, buf, bytes, 2, 0.0, 0, &r));
        check_int("bw: no minimum duration means one pass per repetition", 1, r.passes);
        check_int("bw: a negative duration is CIOT_E_ARG", CIOT_E_ARG,
                  ciot_bw_measure_for(p, CIOT_BW_READ, buf, bytes, 2, -1.0, 0, &r));
        check_int("bw: reps 0 is CIOT_E_ARG", CIOT_E_ARG, ciot_bw_measure(p, CIOT_BW_READ, buf, bytes, 0, &r));
        check_int("bw: a buffer under one page is CIOT_E_ARG", CIOT_E_ARG,
                  ciot_bw_measure(p, CIOT_BW_READ, buf, 100, 1, &r));
        check_int("bw: copy needs two pages", CIOT_E_ARG, ciot_bw_measure(p, CIOT_BW_COPY, buf, 4096, 1, &r));
        check_int("bw: NULL buffer is CIOT_E_ARG", CIOT_E_ARG, ciot_bw_measure(p, CIOT_BW_READ, NULL, bytes, 1, &r));
        ciot_bw_buffer_free(buf, bytes);
        ciot_pool_destroy(p);
    }
    /* The huge-page share is a fraction, or -1 where smaps cannot tell; forbidding them gives none. */
    for (int huge = 0; huge <= 1; huge++) {
        const size_t n = 8 << 20;
        char *b = ciot_bigbuf_alloc(n, huge);
        if (!b) {
            check_int("bigbuf alloc", 1, 0);
            continue;
        }
        memset(b, 1, n);
        double f = ciot_bigbuf_huge_fraction(b);
        char what[64], got[32];
        snprintf(what, sizeof what, "bigbuf huge=%d: huge-page share", huge);
        snprintf(got, sizeof got, "%.3f", f);
        check(f == -1 || (f >= 0 && f <= 1 && (huge || f == 0)), what, huge ? "-1 or 0..1" : "-1 or 0", got);
        if (huge) printf("info: huge-page share of an 8 MiB buffer that asked for them: %.3f\n", f);
        ciot_bigbuf_free(b, n);
    }
    ciot_bw_kind k;
    check_int("bw kind parse 'copy'", CIOT_OK, ciot_bw_kind_parse("copy", &k));
    check_int("bw kind parse 'copy' value", CIOT_BW_COPY, k);
    check_int("bw kind parse 'bogus'", CIOT_E_UNKNOWN, ciot_bw_kind_parse("bogus", &k));
    check_int("bw write label states write-allocate", 1, strstr(ciot_bw_traffic(CIOT_BW_WRITE), "write-allocate") != NULL);
    check_int("bw kind parse 'update'", CIOT_OK, ciot_bw_kind_parse("update", &k));
    check_int("bw kind parse 'update' value", CIOT_BW_UPDATE, k);
    check_int("bw kind parse 'copy_nt'", CIOT_OK, ciot_bw_kind_parse("copy_nt", &k));
    check_int("bw kind parse 'copy_nt' value", CIOT_BW_COPY_NT, k);
    check_int("bw update label: in place, no write-allocate", 1,
              strstr(ciot_bw_traffic(CIOT_BW_UPDATE), "in place") && strstr(ciot_bw_traffic(CIOT_BW_UPDATE), "no write-allocate"));
}

static int always(void) { return 1; }

/* Every ISA's read, update and copy loops do what bw_loops.h says, on the CPUs that run them, in one stream
 * and in several: a read that skipped a block or a stream's tail changes its sum; an update that skipped a
 * word or a store, or touched one twice, or a copy that dropped a stream, changes the bytes. */
static void test_bw_loops(void) {
    typedef struct {
        const char *isa;
        int (*has)(void);
        ciot_bw_read_fn read;
        ciot_bw_update_fn update;
        ciot_bw_copy_nt_fn copy_nt;
        ciot_bw_copy_fn copy;
    } loops;
    const loops all[] = {
        {"generic", always, ciot_bw_read_generic, ciot_bw_update_generic, ciot_bw_copy_nt_generic, ciot_bw_copy_generic},
#if defined(__x86_64__)
        {"avx2", ciot_cpu_has_avx2, ciot_bw_read_avx2, ciot_bw_update_avx2, ciot_bw_copy_nt_avx2, ciot_bw_copy_avx2},
#endif
#if defined(__aarch64__)
        {"neon", ciot_cpu_has_neon, ciot_bw_read_neon, ciot_bw_update_neon, ciot_bw_copy_nt_neon, ciot_bw_copy_neon},
#endif
    };
    enum { WORDS = 3 * CIOT_BW_STREAMS * CIOT_BW_BLOCK / 8 }; /* three blocks a stream */
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) {
        if (!all[i].has()) {
            printf("info: bw loops %s: not on this CPU, not run\n", all[i].isa);
            continue;
        }
        _Alignas(64) uint64_t a[WORDS + 8], b[WORDS + 8], c[WORDS + 8];
        for (int w = 0; w < WORDS + 8; w++) a[w] = 0x9E3779B97F4A7C15ull * (uint64_t)(w + 1), b[w] = c[w] = ~0ull;
        char what[96];
        int same = 1, tail = 1;
        for (int streams = 1; streams <= CIOT_BW_STREAMS; streams *= 2) {
            memset(b, 0xff, sizeof b);
            all[i].copy_nt(b, a, WORDS * 8, streams);
            same = 1, tail = 1;
            for (int w = 0; w < WORDS; w++) same &= b[w] == a[w];
            for (int w = WORDS; w < WORDS + 8; w++) tail &= b[w] == ~0ull;
            snprintf(what, sizeof what, "bw %s: copy_nt in %d stream(s) writes the source's bytes, and no more",
                     all[i].isa, streams);
            check_int(what, 1, same && tail);
        }
        all[i].copy(c, a, WORDS * 8);
        same = 1, tail = 1;
        for (int w = 0; w < WORDS; w++) same &= c[w] == a[w];
        for (int w = WORDS; w < WORDS + 8; w++) tail &= c[w] == ~0ull;
        snprintf(what, sizeof what, "bw %s: copy writes the source's bytes, and no more", all[i].isa);
        check_int(what, 1, same && tail);
        uint64_t sum = 0;
        for (int w = 0; w < WORDS; w++) sum += a[w];
        for (int streams = 1; streams <= CIOT_BW_STREAMS; streams *= 2) {
            snprintf(what, sizeof what, "bw %s: read in %d stream(s) sums every word once", all[i].isa, streams);
            check_int(what, 1, all[i].read(a, WORDS * 8, 0, streams) == sum && all[i].read(a, WORDS * 8, 4096, streams) == sum);
        }
        all[i].update(b, WORDS * 8, 7, 0, 1);
        all[i].update(b, WORDS * 8, 5, 4096, 1); /* with the prefetch policy: the same stores */
        all[i].update(b, WORDS * 8, 11, 0, CIOT_BW_STREAMS);
        all[i].update(b, WORDS * 8, 13, 4096, CIOT_BW_STREAMS);
        same = 1, tail = 1;
        for (int w = 0; w < WORDS; w++) same &= b[w] == a[w] + 36;
        for (int w = WORDS; w < WORDS + 8; w++) tail &= b[w] == ~0ull;
        snprintf(what, sizeof what, "bw %s: update adds the value to every word in place, and to no more", all[i].isa);
        check_int(what, 1, same && tail);
    }
}

/* The span a ruler of an op that writes samples: a pass moves what its ops move in a token, within the cache
 * reach and the buffer. A span of the whole buffer for a small op, or of the traffic itself for an update
 * (which moves each byte twice), fails here. */
static void test_ruler_span(void) {
    const size_t reach = ciot_cache_reach(), buf = 8 * reach;
    const ciot_ruler r = {.bytes = buf};
    check_int("ruler span: no traffic given spans the whole buffer", 1, ciot_ruler_span(&r, CIOT_BW_UPDATE, 0) == buf);
    check_int("ruler span: an update moving 6 x the reach spans 3 x the reach", 1,
              ciot_ruler_span(&r, CIOT_BW_UPDATE, 6 * reach) == 3 * reach);
    check_int("ruler span: a copy moving 3 x the reach spans 3 x the reach (half each way)", 1,
              ciot_ruler_span(&r, CIOT_BW_COPY_NT, 3 * reach) == 3 * reach);
    check_int("ruler span: never below the cache reach", 1, ciot_ruler_span(&r, CIOT_BW_COPY, 1000) == reach);
    check_int("ruler span: never past the buffer", 1, ciot_ruler_span(&r, CIOT_BW_UPDATE, 40 * reach) == buf);
}

/* ---- the compute probe ---- */

static void test_compute(void) {
    int any = 0;
    for (int f = 0; f < CIOT_COMPUTE_N_FAMILIES; f++) {
        if (!ciot_compute_available((ciot_compute_family)f)) {
            ciot_pool_opts o = {.threads = 1};
            ciot_pool *p;
            ciot_compute_result r;
            if (ciot_pool_create(CIOT_POOL_PERSISTENT, &o, &p) == CIOT_OK) {
                check_int("compute: a family the CPU lacks is CIOT_E_CPU", CIOT_E_CPU,
                          ciot_compute_measure(p, (ciot_compute_family)f, 0.01, 1, &r));
                ciot_pool_destroy(p);
            }
            continue;
        }
        any = 1;
        for (int threads = 1; threads <= 2; threads++) {
            ciot_pool_opts o = {.threads = threads, .pin = 1};
            ciot_pool *p;
            char what[128];
            if (ciot_pool_create(CIOT_POOL_PERSISTENT, &o, &p) != CIOT_OK) {
                check_int("compute: pool", CIOT_OK, -1);
                continue;
            }
            ciot_compute_result r;
            const uint64_t t0 = ciot_now_ns();
            ciot_status st = ciot_compute_measure(p, (ciot_compute_family)f, 0.01, 3, &r);
            const double wall = (double)(ciot_now_ns() - t0) * 1e-9;
            snprintf(what, sizeof what, "compute %s, %d threads: status", ciot_compute_family_name(f), threads);
            check_int(what, CIOT_OK, st);
            if (st == CIOT_OK) {
                snprintf(what, sizeof what, "compute %s, %d threads: rates", ciot_compute_family_name(f), threads);
                check_rates(what, r.min_gmacs, r.max_gmacs);
                snprintf(what, sizeof what, "compute %s, %d threads: against the wall clock", ciot_compute_family_name(f), threads);
                check_not_below_wall(what, r.min_gmacs, (double)r.macs_per_iter * (double)r.iters * threads, wall);
                snprintf(what, sizeof what, "compute %s: declared MACs per iteration", ciot_compute_family_name(f));
                check_int(what, 1, r.macs_per_iter > 0 && r.iters > 0 && r.threads == threads);
                printf("info: compute %s, %d thread(s): %.1f GMAC/s median\n", ciot_compute_family_name(f), threads,
                       r.median_gmacs);
            }
            ciot_pool_destroy(p);
        }
    }
    /* AVX2 on x86 and SDOT on ARM are the oldest families; a CPU with either must run one. */
    if (ciot_cpu_has_avx2() || ciot_cpu_has_dotprod())
        check_int("compute: at least one family runs on this CPU", 1, any);
    ciot_compute_family f;
    check_int("compute family parse 'i8mm'", CIOT_OK, ciot_compute_family_parse("i8mm", &f));
    check_int("compute family parse 'bogus'", CIOT_E_UNKNOWN, ciot_compute_family_parse("bogus", &f));
}

/* ---- the commands, in process ---- */

static int run_cmd(int (*cmd)(int, char **), int argc, const char **argv) {
    fflush(stdout);
    int rc = cmd(argc, (char **)argv);
    fflush(stdout);
    return rc;
}

#define RUN(cmd, ...) \
    run_cmd(cmd, (int)(sizeof((const char *[]){__VA_ARGS__}) / sizeof(const char *)), (const char *[]){__VA_ARGS__})

/* Every probe loop performs the MACs it declares: with operands of 1 each MAC adds exactly 1 to its checksum,
 * so a loop that skips a step, or a declared count above what the loop does (a roof set too high), fails.
 * The SVE loops count iterations in 128-bit granules (whole vectors of them): 960 is a whole number of
 * vectors at every SVE length (1 to 16 granules). 960 iterations keep avx2_i16's int16 lanes (2 an
 * iteration) and the _b32 loops' float states exact. The compiled loops' multiplies are counted apart
 * (tests/compute_loop_multiplies.py): a folded loop still sums right. */
static void test_compute_counts(void) {
    enum { ITERS = 960 };
    int checked = 0;
#define LOOP_COUNT(id, name, family, instruction)                                                                  \
    if (ciot_compute_available(CIOT_COMPUTE_##family)) {                                                         \
        check_int("compute " #name ": checksum of 960 iterations = declared MACs x 960",                       \
                  (long long)(uint32_t)((uint64_t)ciot_compute_macs_##name * ITERS),                             \
                  (long long)(uint32_t)ciot_compute_loop_##name(ITERS));                                        \
        checked++;                                                                                              \
    }
#define LOOP_COUNT_ROW(id, word, suffix, flags, needs, probe, detect) CIOT_ISA_PROBE(LOOP_COUNT, id, suffix, probe)
#if defined(__x86_64__)
    CIOT_ISA_X86(LOOP_COUNT_ROW)
#elif defined(__aarch64__)
    CIOT_ISA_ARM(LOOP_COUNT_ROW)
#endif
#undef LOOP_COUNT_ROW
#undef LOOP_COUNT
    printf("info: %d compute loops counted\n", checked);
}

static void test_commands(void) {
    check_int("ciot bw --threads 0 exits 2", 2, RUN(ciot_cmd_bw, "bw", "--threads", "0"));
    check_int("ciot bw --threads abc exits 2", 2, RUN(ciot_cmd_bw, "bw", "--threads", "abc"));
    check_int("ciot bw --size 999T exits 2", 2, RUN(ciot_cmd_bw, "bw", "--size", "999T"));
    check_int("ciot bw --size 1Q exits 2", 2, RUN(ciot_cmd_bw, "bw", "--size", "1Q"));
    check_int("ciot bw --kernels read,bogus exits 2", 2, RUN(ciot_cmd_bw, "bw", "--kernels", "read,bogus"));
    check_int("ciot bw --reps 0 exits 2", 2, RUN(ciot_cmd_bw, "bw", "--reps", "0"));
    check_int("ciot bw --size (no value) exits 2", 2, RUN(ciot_cmd_bw, "bw", "--size"));
    check_int("ciot bw --bogus exits 2", 2, RUN(ciot_cmd_bw, "bw", "--bogus"));
    check_int("ciot compute --threads 0 exits 2", 2, RUN(ciot_cmd_compute, "compute", "--threads", "0"));
    check_int("ciot compute --families bogus exits 2", 2, RUN(ciot_cmd_compute, "compute", "--families", "bogus"));

    char path[512];
    tmp_path(path, sizeof path, "bw.json");
    check_int("ciot bw on 1M, 1-2 threads, read, --json exits 0", 0,
              RUN(ciot_cmd_bw, "bw", "--size", "1M", "--threads", "1,2", "--reps", "1", "--kernels", "read",
                  "--json", path));
    char *got = slurp(path);
    check(got && strstr(got, "\"median_gbs\"") && strstr(got, "\"kernel\": \"read\""), "ciot bw --json content",
          "a results array with read rates", got ? got : "(no file)");
    free(got);
    remove(path);
    int any_family = 0;
    for (int f = 0; f < CIOT_COMPUTE_N_FAMILIES; f++) any_family |= ciot_compute_available((ciot_compute_family)f);
    check_int(any_family ? "ciot compute, 1 thread, 1 rep exits 0" : "ciot compute with no int8 family exits 2",
              any_family ? 0 : 2, RUN(ciot_cmd_compute, "compute", "--threads", "1", "--reps", "1", "--ms", "5"));
}

int main(void) {
    test_json();
    test_cli();
    test_gb_flags();
    test_quote();
    test_bw();
    test_bw_loops();
    test_ruler_span();
    test_compute();
    test_compute_counts();
    test_commands();
    printf("%d passed, %d failed, 0 skipped\n", passed, failed);
    return failed != 0;
}
