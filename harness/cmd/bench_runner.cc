// The timed side of `ciot bench`: one pooled call, a case's repetition paired with its probe samples, the
// empty-job overhead, and their registration with Google Benchmark.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>

#include "bench_state.h"

extern "C" {
#include "parallel.h"
}

namespace ciot_bench {

// One pooled call of the case's kernel on the next cold copy of its weights; seconds.
double call(Case &c, ciot_pool *p) {
    if (c.peer) return peer_call(c);
    ciot_mm mm = {ciot_weight_ring_next(&g->region, c.ring), c.x, c.y.data(), c.rows, c.K, c.batch, c.rows,
                  g->opt.prefetch};
    const uint64_t t0 = ciot_now_ns();
    ciot_run_parallel(p, c.k, &mm, CIOT_SPLIT_STATIC, 0, NULL);
    return double(ciot_now_ns() - t0) * 1e-9;
}

namespace {

void run_case(benchmark::State &st, size_t idx) {
    Case &c = g->cases[idx];
    ciot_pool *p = acquire_pool(probe_pool(c), c.threads);
    if (!p) {
        st.SkipWithError("cannot create the thread pool");
        return;
    }
    ensure_filled(c, p);
    const bool probe_first = ciot_probe_first(int(c.reps.size()));
    double probe = 0, compute = 0, seconds = 0;
    // The read sample, then the compute sample of the case's family: one side of the kernel, like a pair.
    auto probes = [&]() {
        if (ciot_ruler_sample(&g->ruler, p, &probe) != CIOT_OK) {
            st.SkipWithError("the read probe failed");
            return false;
        }
        // Two compute samples, the faster counts (as the read probe keeps its faster read): on a shared
        // machine a descheduled thread slows one sample, and that would be no roof.
        double again = 0;
        if (c.has_family && (ciot_compute_sample(p, c.family, c.compute_iters, &compute) != CIOT_OK ||
                             ciot_compute_sample(p, c.family, c.compute_iters, &again) != CIOT_OK)) {
            st.SkipWithError("the compute probe failed");
            return false;
        }
        compute = std::max(compute, again);
        return true;
    };
    if (probe_first && !probes()) return;
    for (auto _ : st) {
        const double dt = call(c, p);
        st.SetIterationTime(dt);
        seconds += dt;
    }
    if (!probe_first && !probes()) return;
    const double calls = double(st.iterations()), gweights = double(c.rows) * c.K * c.batch * calls / seconds * 1e-9;
    const double kernel_gbs = double(c.ring->bytes) * calls / seconds * 1e-9;
    const bool gemm = c.k->op == CIOT_OP_GEMM;
    const ciot_pair pair = ciot_pair_of(kernel_gbs, probe, probe_first);
    const ciot_roof roof = ciot_roof_of(gemm, c.intensity, probe, compute, gweights, pair.ratio);
    c.reps.push_back(Rep{seconds, gweights, kernel_gbs, probe, pair.ratio, probe_first, compute, roof});
    st.counters["Gweights/s"] = gweights;
    st.counters["GB/s"] = kernel_gbs;
    if (gemm) st.counters["GMAC/s"] = gweights;
    st.counters["probe_GB/s"] = probe;
    st.counters["pct_ceiling"] = 100 * pair.ratio;
    if (c.has_family) st.counters["compute_GMAC/s"] = compute;
    if (roof.kind != CIOT_ROOF_NONE) st.counters["pct_roof"] = 100 * roof.ratio;
    const bool above_compute = roof.kind == CIOT_ROOF_COMPUTE && roof.ratio > 1;
    std::string label = std::string(pool_name(c.kind)) + " pool";
    if (pair.ratio > 1) label += " [ratio > 100%: " CIOT_RATIO_FLAG "]";
    if (above_compute) label += " [above the compute roof: " CIOT_COMPUTE_FLAG "]";
    if (ciot_cache_resident(g->region.bytes)) label += " [" CIOT_CACHE_FLAG "]";
    st.SetLabel(label);
    char judged[96];
    if (roof.kind == CIOT_ROOF_NONE)
        snprintf(judged, sizeof judged, "no compute roof (%s)", c.no_family);
    else
        snprintf(judged, sizeof judged, "%.0f%% of the %s roof%s", 100 * roof.ratio, ciot_roof_kind_name(roof.kind),
                 pair.ratio > 1 || above_compute ? " (flagged: > 100%)" : "");
    char comp[48] = "";
    if (c.has_family) snprintf(comp, sizeof comp, ", %s %.1f GMAC/s", ciot_compute_family_name(c.family), compute);
    char left[64];
    ++g->done;
    ciot_progress_left(&g->progress, g->done, left, sizeof left);
    fprintf(stderr, "ciot bench: [%d/%d] %s rep %zu: %.1f Gweights/s, %.2f GB/s, probe %.2f GB/s%s, %s%s%s\n", g->done,
            g->total, c.name.c_str(), c.reps.size(), gweights, kernel_gbs, probe, comp, judged, *left ? "; " : "", left);
}

void empty_task(void *, int, int) {}

// The cost of one pooled call with no work: publish, wake, run nothing, barrier (persistent), or
// create and join the threads (spawn).
void run_empty_job(benchmark::State &st, size_t idx) {
    Overhead &o = g->overheads[idx];
    ciot_pool *p = acquire_pool(o.kind, o.threads);
    if (!p) {
        st.SkipWithError("cannot create the thread pool");
        return;
    }
    double seconds = 0;
    for (auto _ : st) {
        const uint64_t t0 = ciot_now_ns();
        ciot_pool_run(p, empty_task, nullptr);
        const double dt = double(ciot_now_ns() - t0) * 1e-9;
        st.SetIterationTime(dt);
        seconds += dt;
    }
    o.us.push_back(seconds / double(st.iterations()) * 1e6);
    st.SetLabel(std::string(pool_name(o.kind)) + " pool");
}

}  // namespace

// Manual time, o.reps repetitions with min and max; the unit is ms (kernels) or us (pool overhead)
// unless --benchmark_time_unit chose one (have_unit): an explicit Unit() would override the flag.
void register_benchmarks(bool have_unit) {
    const Options &o = g->opt;
    auto common = [&](benchmark::internal::Benchmark *b, benchmark::TimeUnit unit) {
        b->UseManualTime()
            ->Repetitions(o.reps)
            ->ComputeStatistics("min", [](const std::vector<double> &v) { return *std::min_element(v.begin(), v.end()); })
            ->ComputeStatistics("max", [](const std::vector<double> &v) { return *std::max_element(v.begin(), v.end()); });
        if (!have_unit) b->Unit(unit);
        return b;
    };
    for (size_t i = 0; i < g->cases.size(); i++)
        common(benchmark::RegisterBenchmark(g->cases[i].name.c_str(), run_case, i), benchmark::kMillisecond)
            ->Iterations(g->cases[i].iterations);
    for (size_t i = 0; i < g->overheads.size(); i++)
        common(benchmark::RegisterBenchmark(g->overheads[i].name.c_str(), run_empty_job, i), benchmark::kMicrosecond);
}

}  // namespace ciot_bench
