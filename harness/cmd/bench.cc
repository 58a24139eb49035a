// ciot bench: registers Google Benchmark cases from the kernel registry. Each repetition of a case is one
// read-probe sample and the kernel's timed calls, on the same pool, alternating which goes first
// (measure.h); a gemm whose kernel multiplies with an int8 family also takes one compute-probe sample of
// that family beside the read sample, its compute roof (roof.h). The kernel's calls rotate through copies
// of the weights in a region of at least max(4 x LLC, 1 GiB) so every call starts cold. Counters per
// repetition: Gweights/s, GB/s of packed weights, GMAC/s (gemm), the paired probe's GB/s and the ratio, the
// compute sample and the ratio to the roof; bench_report.cc prints and writes them.
// This file is the entry point: the steps of a run in order (bench_state.h names the files of each).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench_console.h"
#include "bench_state.h"

extern "C" {
#include "bench.h"
#include "distinct_paths.h"
#include "output.h"
#include "sweep.h"
#include "tuning.h"
}

using namespace ciot_bench;

namespace {

// The Google Benchmark side of a run: its argv (alive until the run ends, as Initialize was given it), the
// flags ciot leaves to it, and its own --benchmark_out, written through a checked output.
struct GbArgs {
    std::vector<std::string> passthrough{"ciot bench"};
    std::vector<char *> argv;
    bool have_interleave = false, have_aggr = false, have_unit = false, other_format = false;
    std::string out_path;
};

// The run's output files: each aborted or discarded unless committed.
struct Outputs {
    std::unique_ptr<ciot_out, void (*)(ciot_out *)> gb_out{nullptr, ciot_out_abort};
    std::unique_ptr<ciot_json, void (*)(ciot_json *)> json{nullptr, ciot_json_discard};
};

// The Google Benchmark flags parse_args checked (bench_flags.h), sorted; the last one of a name counts.
void sort_gb_flags(const std::vector<std::string> &gb_flags, GbArgs &gb) {
    for (auto &a : gb_flags) {
        gb.have_interleave |= a.rfind("--benchmark_enable_random_interleaving", 0) == 0;
        gb.have_aggr |= a.rfind("--benchmark_display_aggregates_only", 0) == 0 || a.rfind("--benchmark_report_aggregates_only", 0) == 0;
        gb.have_unit |= a.rfind("--benchmark_time_unit=", 0) == 0;
        if (a.rfind("--benchmark_format=", 0) == 0) gb.other_format = a != "--benchmark_format=console";
        if (a.rfind("--benchmark_out=", 0) == 0) gb.out_path = a.substr(16);
        else gb.passthrough.push_back(a);
    }
}

// The files named distinct, and --benchmark_out's temporary file created (Google Benchmark writes its file
// by name: it gets the temporary file of a checked output). Returns -1 when fine, else the exit code.
int open_gb_out(const Options &o, GbArgs &gb, Outputs &out) {
    const ciot_named_path files[] = {
        {"--gguf", o.gguf.empty() ? nullptr : o.gguf.c_str(), CIOT_PATH_INPUT, nullptr},
        {"--json", o.json.empty() ? nullptr : o.json.c_str(), CIOT_PATH_OUTPUT, nullptr},
        {"--benchmark_out", gb.out_path.empty() ? nullptr : gb.out_path.c_str(), CIOT_PATH_OUTPUT, nullptr},
    };
    const int rc = ciot_distinct_paths("bench", files, int(sizeof files / sizeof files[0]));
    if (rc >= 0 || gb.out_path.empty()) return rc;
    char why[CIOT_WHY_MAX];
    ciot_out *f;
    if (ciot_out_open(gb.out_path.c_str(), &f, why, sizeof why) != CIOT_OK) {
        fprintf(stderr, "ciot bench: --benchmark_out %s\n", why);
        return 2;
    }
    out.gb_out.reset(f);
    gb.passthrough.push_back(std::string("--benchmark_out=") + ciot_out_temp_path(f));
    return -1;
}

// Google Benchmark initialized with the passed-through flags and ciot's defaults for those not given;
// returns -1 when it took them all, else the exit code.
int init_gb(GbArgs &gb) {
    if (!gb.have_interleave) gb.passthrough.push_back("--benchmark_enable_random_interleaving=true");
    if (!gb.have_aggr) gb.passthrough.push_back("--benchmark_display_aggregates_only=true");
    for (auto &s : gb.passthrough) gb.argv.push_back(&s[0]);
    int argc = int(gb.argv.size());
    gb.argv.push_back(nullptr);
    benchmark::Initialize(&argc, gb.argv.data());
    return benchmark::ReportUnrecognizedArguments(argc, gb.argv.data()) ? 2 : -1;
}

// The cases Google Benchmark's filter keeps, and the memory for them; -1 when fine, else the exit code.
int select_cases(Options &o) {
    if (!o.threads.n) ciot_sweep_default_threads(&o.threads);
    for (int i = 0; i < o.threads.n; i++)
        if (ciot_warn_oversubscribed("bench", o.threads.v[i])) break;
    const int rc = make_cases(benchmark::GetBenchmarkFilter());
    return rc >= 0 ? rc : settle_memory();
}

// Output paths are checked before the long work: their temporary files are created now (and removed on an
// interruption, harness/io/tmpfiles.h). Returns -1 when fine, else the exit code.
int open_json(const Options &o, Outputs &out) {
    if (o.json.empty()) return -1;
    char why[CIOT_WHY_MAX];
    ciot_json *j;
    if (ciot_json_create(o.json.c_str(), &j, why, sizeof why) != CIOT_OK) {
        fprintf(stderr, "ciot bench: --json %s\n", why);
        return 2;
    }
    out.json.reset(j);
    return -1;
}

// Every registered case and overhead row run by Google Benchmark, after the estimate of how long.
void run_benchmarks(const ciot_context &ctx) {
    g->total = int(g->cases.size()) * g->opt.reps;
    announce_estimate();
    benchmark::AddCustomContext("ciot_commit", std::string(ctx.commit) + (ctx.dirty > 0 ? " (dirty)" : ""));
    benchmark::AddCustomContext("ciot_protocol", "each repetition paired with a read-probe sample on the same pool "
                                                 "(counters probe_GB/s, pct_ceiling), gemm rows with a compute family "
                                                 "with a compute-probe sample too (compute_GMAC/s; pct_roof: the "
                                                 "ratio to the roof); ciot bench --json has them all");
    Console console;
    benchmark::RunSpecifiedBenchmarks(&console);
    benchmark::Shutdown();
}

// The summary table, then the output files committed; returns the exit code.
int finish_outputs(Outputs &out, ciot_context *ctx, bool other_format) {
    const Options &o = g->opt;
    ciot_context_finish(ctx);
    print_summary(other_format ? stderr : stdout, o, g->cases, g->ruler, g->region);
    int rc = 0;
    char why[CIOT_WHY_MAX];
    if (out.gb_out && ciot_out_commit(out.gb_out.release(), why, sizeof why) != CIOT_OK) {
        fprintf(stderr, "ciot bench: --benchmark_out %s\n", why);
        rc = 1;
    }
    if (out.json) {
        write_json(out.json.get(), o, g->cases, g->overheads, ctx, g->ruler, g->region);
        if (ciot_json_commit(out.json.release(), why, sizeof why) != CIOT_OK) {
            fprintf(stderr, "ciot bench: --json %s\n", why);
            rc = 1;
        }
    }
    return rc;
}

// The summary row of case c over its repetitions.
void fill_row(const Case &c, ciot_bench_row &r) {
    const Summary s = summarize(c);
    memset(&r, 0, sizeof r);
    snprintf(r.kernel, sizeof r.kernel, "%s", c.k->name);
    snprintf(r.pool, sizeof r.pool, "%s", pool_name(c.kind));
    snprintf(r.op, sizeof r.op, "%s", c.k->op == CIOT_OP_GEMM ? "gemm" : "gemv");
    r.threads = c.threads, r.batch = c.batch, r.rows = c.rows, r.K = c.K, r.reps = int(c.reps.size());
    r.gw_min = s.gw.min, r.gw_median = s.gw.median, r.gw_max = s.gw.max;
    r.gbs_median = s.gbs.median, r.gmacs_median = c.k->op == CIOT_OP_GEMM ? s.gw.median : 0;
    r.probe_min = s.probe.min, r.probe_median = s.probe.median, r.probe_max = s.probe.max;
    r.ratio_min = s.ratio.min, r.ratio_median = s.ratio.median, r.ratio_max = s.ratio.max;
    r.ratio_above_1 = s.ratio_above_1;
    r.cache_resident = ciot_cache_resident(g->region.bytes);
    r.intensity = c.intensity;
    if (c.has_family) snprintf(r.family, sizeof r.family, "%s", ciot_compute_family_name(c.family));
    else if (c.k->op == CIOT_OP_GEMM) snprintf(r.no_family, sizeof r.no_family, "%s", c.no_family);
    r.compute_min = s.compute.min, r.compute_median = s.compute.median, r.compute_max = s.compute.max;
    r.bound = s.bound, r.bound_mixed = s.bound_mixed;
    r.roof_min = s.roof_ratio.min, r.roof_median = s.roof_ratio.median, r.roof_max = s.roof_ratio.max;
    r.above_compute_roof = s.above_compute_roof;
    r.low_outlier = s.low_outlier;
    r.peer = c.peer != nullptr;
}

// The read rate the estimate takes: one short sample of a small buffer on the largest pool, a fraction of a
// second where a guessed rate could misjudge a run by a factor of three; a modest guess if it cannot run.
double sampled_read_gbs() {
    constexpr size_t kBytes = size_t(256) << 20;
    constexpr double kGuessGbsPerThread = 10, kSeconds = 0.02;
    double gbs = 0;
    ciot_ruler r{};
    ciot_pool *p = acquire_pool(CIOT_POOL_PERSISTENT, max_threads());
    if (p && ciot_ruler_init(&r, p, kBytes, g->opt.huge, g->opt.prefetch, kSeconds, 1) == CIOT_OK)
        ciot_ruler_sample(&r, p, &gbs);
    ciot_ruler_free(&r);
    return gbs > 0 ? gbs : kGuessGbsPerThread * max_threads();
}

}  // namespace

// An estimate of a run's length before its buffers are allocated: the read rate from one short sample, the
// calls at --rep-ms. Returns -1 when argv is fine, else the exit code.
extern "C" int ciot_bench_estimate(int argc, char **argv, double *seconds, int *cases, double *read_gbs) {
    std::unique_ptr<Run> run(new Run);
    g = run.get();
    struct Forget { ~Forget() { g = nullptr; } } forget;   // the run is gone when this returns
    std::vector<std::string> gb_flags;
    int rc = parse_args(argc, argv, g->opt, gb_flags);
    if (rc >= 0) return rc;
    std::string filter;
    for (auto &a : gb_flags)
        if (a.rfind("--benchmark_filter=", 0) == 0) filter = a.substr(19);
    if (!g->opt.threads.n) ciot_sweep_default_threads(&g->opt.threads);
    if ((rc = make_cases(filter)) >= 0) return rc;
    *read_gbs = sampled_read_gbs();
    *seconds = estimate_seconds(*read_gbs, max_threads());
    *cases = int(g->cases.size());
    return -1;
}

extern "C" int ciot_bench_main(int argc, char **argv, ciot_bench_row *rows, int max, int *n) {
    if (n) *n = 0;
    std::unique_ptr<Run> run(new Run);
    g = run.get();
    Options &o = g->opt;
    GbArgs gb;
    Outputs out;
    std::vector<std::string> gb_flags;
    int rc = parse_args(argc, argv, o, gb_flags);
    if (rc >= 0) return rc;
    ciot_tuning_use("bench");   // the CHOSEN marks follow this machine's measurements
    sort_gb_flags(gb_flags, gb);
    if ((rc = open_gb_out(o, gb, out)) >= 0) return rc;
    if ((rc = init_gb(gb)) >= 0) return rc;
    if ((rc = select_cases(o)) >= 0) return rc;
    if ((rc = open_json(o, out)) >= 0) return rc;
    ciot_context ctx;
    ciot_context_collect(&ctx);
    if (ciot_cache_resident(o.working_set))
        fprintf(stderr, "ciot bench: warning: the weight region is below 4 x LLC (%s): every case is labelled "
                        "cache-resident\n", ctx.llc_source);
    if ((rc = prepare()) >= 0) return rc;
    register_benchmarks(gb.have_unit);
    run_benchmarks(ctx);
    rc = finish_outputs(out, &ctx, gb.other_format);
    for (auto &c : g->cases) {
        if (!rows || !n || *n >= max || c.reps.empty()) continue;
        fill_row(c, rows[(*n)++]);
    }
    return rc;
}

extern "C" int ciot_cmd_bench(int argc, char **argv) { return ciot_bench_main(argc, argv, nullptr, 0, nullptr); }
