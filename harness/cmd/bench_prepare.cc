// The warm-up of `ciot bench` (the weights and probe buffer made, every case sized) and the estimate of
// how long its repetitions take.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "bench_state.h"

extern "C" {
#include "place.h"
#include "cli.h"
}

namespace ciot_bench {

// Allocates and first-touches the weights and the probe buffer on the pool of the most threads, then
// warms every case up and sizes its repetition; returns -1 when fine, else the exit code.
int prepare() {
    Options &o = g->opt;
    char b1[32], b2[32];
    ciot_pool *p = acquire_pool(CIOT_POOL_PERSISTENT, *std::max_element(o.threads.v, o.threads.v + o.threads.n));
    if (!p) {
        fprintf(stderr, "ciot bench: cannot create the thread pool\n");
        return 1;
    }
    fprintf(stderr, "ciot bench: filling %s of weights and touching the %s probe buffer (%s pages)\n",
            ciot_format_bytes(o.working_set, b1, sizeof b1), ciot_format_bytes(o.ceiling_bytes, b2, sizeof b2),
            o.huge ? "huge" : "small");
    if (ciot_weight_region_make(p, o.working_set, o.huge, &g->region) != CIOT_OK ||
        ciot_ruler_init(&g->ruler, p, o.ceiling_bytes, o.huge, o.prefetch, o.probe_seconds, 0) != CIOT_OK) {
        fprintf(stderr, "ciot bench: cannot allocate the weight region and the probe buffer\n");
        return 1;
    }
    // Warm-up in pool order, so pools are not recreated for every case.
    std::vector<size_t> order(g->cases.size());
    for (size_t i = 0; i < order.size(); i++) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [](size_t a, size_t b) {
        return std::make_tuple(g->cases[a].kind, g->cases[a].threads) < std::make_tuple(g->cases[b].kind, g->cases[b].threads);
    });
    int step = 0;
    std::map<std::tuple<int, ciot_pool_kind, int>, uint64_t> compute_iters;
    for (size_t i : order) {
        Case &c = g->cases[i];
        c.ring = ring_for(c.k->layout, c.rows, c.K);
        c.x = c.peer ? nullptr : acts_for(c.k->act, c.batch, c.K);
        c.y.assign(size_t(c.batch) * size_t(c.rows), 0.0f);
        if (c.peer && !peer_prepare(c)) return 1;
        ciot_pool *cp = acquire_pool(probe_pool(c), c.threads);
        if (!c.ring || !cp) {
            fprintf(stderr, "ciot bench: %s: cannot %s\n", c.name.c_str(), cp ? "view the weight region" : "create the pool");
            return 1;
        }
        char note[128];
        c.pinning = c.peer ? "the runtime's own threads (ciot pins only its probe's)"
                           : ciot_pinning_note(o.pin, g->info.pinned, c.threads, note, sizeof note);
        c.priority = g->info.priority;
        fprintf(stderr, "\rciot bench: warming up and sizing %d/%zu", ++step, g->cases.size());
        ensure_filled(c, cp);
        call(c, cp);                                // page walks, pool wake-up, caches of the code
        c.pus.clear();
        for (int th = 0; th < c.threads; th++) c.pus.push_back(o.pin && !c.peer ? ciot_place_ran_on(th) : -1);   // ciot pins no runtime thread
        c.warmup_seconds = call(c, cp);
        c.iterations = long(std::min(1e6, std::max(1.0, std::ceil(o.rep_seconds / std::max(c.warmup_seconds, 1e-9)))));
        c.intensity = ciot_intensity(c.rows, c.K, c.batch, c.ring->bytes);
        c.has_family = ciot_roof_family(c.k, c.batch, &c.family, &c.no_family);
        if (!c.has_family) continue;
        // The compute sample's length is sized once per family and pool, the same way ciot compute does.
        auto key = std::make_tuple(int(c.family), c.kind, c.threads);
        if (!compute_iters.count(key) &&
            ciot_compute_size(cp, c.family, o.compute_seconds, &compute_iters[key]) != CIOT_OK) {
            fprintf(stderr, "\nciot bench: %s: the %s compute probe cannot run\n", c.name.c_str(),
                    ciot_compute_family_name(c.family));
            return 1;
        }
        c.compute_iters = compute_iters[key];
    }
    fprintf(stderr, "\n");
    return -1;
}

namespace {

// A read-probe sample runs every plan of the policy (probe_bw.c: one stream or several, with and without
// the prefetch), each in whole passes of the buffer until they last probe_seconds.
constexpr int kReadPlans = 4;
double probe_sample_seconds(size_t bytes, double probe_seconds, double gbs) {
    const double pass = double(bytes) / (gbs * 1e9);
    return kReadPlans * std::max(1.0, std::ceil(probe_seconds / pass)) * pass;
}

}  // namespace

// Seconds the repetitions take: per case, reps x (its timed calls, a probe sample at the case's share of
// read_gbs, two compute samples for a gemm with a family), plus its warm-up. Before the warm-up sized the
// calls, a repetition's calls count as rep_seconds.
double estimate_seconds(double read_gbs, int max_threads) {
    const Options &o = g->opt;
    const size_t probe_bytes = o.ceiling_bytes ? o.ceiling_bytes : ciot_cold_bytes();
    double total = 0;
    for (auto &c : g->cases) {
        const double calls = c.warmup_seconds > 0 ? double(c.iterations) * c.warmup_seconds : o.rep_seconds;
        const double gbs = read_gbs * std::min(1.0, double(c.threads) / max_threads);
        ciot_compute_family family;
        const char *why;
        const bool compute = c.k->op == CIOT_OP_GEMM && ciot_roof_family(c.k, c.batch, &family, &why);
        total += o.reps * (calls + probe_sample_seconds(probe_bytes, o.probe_seconds, gbs) +
                           (compute ? 2 * o.compute_seconds : 0)) + 3 * calls / o.reps;
    }
    return total;
}

// The estimate printed before the repetitions, from one probe sample timed now on the largest pool.
void announce_estimate() {
    ciot_progress_start(&g->progress, g->total);
    double gbs = 0;
    ciot_pool *p = acquire_pool(CIOT_POOL_PERSISTENT, max_threads());
    if (!p || ciot_ruler_sample(&g->ruler, p, &gbs) != CIOT_OK || !(gbs > 0)) return;
    const double seconds = estimate_seconds(gbs, max_threads());
    char d[32];
    fprintf(stderr, "ciot bench: %zu cases x %d repetitions, each paired with a probe sample: about %s\n",
            g->cases.size(), g->opt.reps, ciot_duration(seconds, d, sizeof d));
}

}  // namespace ciot_bench
