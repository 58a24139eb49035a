// ciot bench: registers Google Benchmark cases from the kernel registry. Each case times one pooled
// call (manual time, wall clock) over rotating weight copies so every call starts cold, and reports
// Gweights/s, GB/s of packed weights, GMAC/s (gemm) and the share of the read ceiling measured by the
// DRAM probe at the same thread count in this process.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include <unistd.h>

extern "C" {
#include "bench.h"
#include "bigbuf.h"
#include "context.h"
#include "cpu.h"
#include "parallel.h"
#include "pool.h"
#include "prefetch.h"
#include "probe_bw.h"
#include "registry.h"
#include "topo.h"
#include "topology.h"
#include "weights.h"
}

namespace {

struct Options {
    int gemv_rows = 32768, gemv_k = 8192, gemm_rows = 17408, gemm_k = 5120;
    std::vector<int> batches{4, 64};
    std::vector<int> threads;
    std::vector<std::string> kernels;   // substrings; empty = all available
    int refs = 1;                       // 0 none, 1 gemv references only, 2 all
    bool spawn = true, pin = true;
    size_t working_set = 0;             // 0 = max(4 x LLC, 1 GiB)
    size_t ceiling_bytes = size_t(1) << 30;
};

struct Case {
    const ciot_kernel *k;
    int rows, K, batch, threads;
    ciot_pool_kind kind;
    std::string name;
    std::vector<double> gw, gbs, gmacs;   // per repetition, filled by the reporter
    std::map<std::string, std::map<std::string, double>> aggregates;   // "median" -> counter -> value
    double ceiling = 0;
    int reps = 0;
};

// State shared by the cases, built lazily so nothing long happens before a case runs.
struct Shared {
    Options opt;
    std::vector<Case> cases;
    ciot_pool *pool = nullptr;
    ciot_pool_kind kind = CIOT_POOL_PERSISTENT;
    int pool_threads = 0;
    ciot_weight_region region{};
    std::map<std::tuple<const ciot_layout *, int, int>, ciot_weight_ring> rings;
    std::map<std::tuple<const ciot_act_format *, int, int>, std::vector<unsigned char>> acts;
    std::map<int, double> ceiling;   // threads -> median read GB/s
    std::string pool_note;
    ~Shared() {
        if (pool) ciot_pool_destroy(pool);
        ciot_weight_region_free(&region);
    }
};
Shared *g;

// One pool alive at a time: idle spinning workers of a second pool would steal the cores.
ciot_pool *acquire_pool(ciot_pool_kind kind, int threads) {
    if (g->pool && g->kind == kind && g->pool_threads == threads) return g->pool;
    if (g->pool) ciot_pool_destroy(g->pool);
    g->pool = nullptr;
    ciot_pool_opts o = {threads, g->opt.pin ? 1 : 0, 0, 0};
    if (ciot_pool_create(kind, &o, &g->pool) != CIOT_OK) return nullptr;
    g->kind = kind, g->pool_threads = threads;
    ciot_pool_info info;
    ciot_pool_get_info(g->pool, &info);
    g->pool_note = std::string(info.pinned ? "pinned" : "not pinned") + ", " + info.priority;
    return g->pool;
}

double read_ceiling(int threads) {
    auto it = g->ceiling.find(threads);
    if (it != g->ceiling.end()) return it->second;
    ciot_pool *p = acquire_pool(CIOT_POOL_PERSISTENT, threads);
    void *buf = nullptr;
    double gbs = 0;
    if (p && ciot_bw_buffer_alloc(p, g->opt.ceiling_bytes, 1, &buf) == CIOT_OK) {
        ciot_bw_result r;
        if (ciot_bw_measure(p, CIOT_BW_READ, buf, g->opt.ceiling_bytes, 5, &r) == CIOT_OK) gbs = r.median_gbs;
        ciot_bw_buffer_free(buf, g->opt.ceiling_bytes);
    }
    g->ceiling[threads] = gbs;
    return gbs;
}

const ciot_weight_ring *ring_for(const ciot_layout *l, int rows, int K) {
    auto key = std::make_tuple(l, rows, K);
    auto it = g->rings.find(key);
    if (it != g->rings.end()) return &it->second;
    if (!g->region.base && ciot_weight_region_make(g->opt.working_set, &g->region) != CIOT_OK) return nullptr;
    ciot_weight_ring r;
    if (ciot_weight_ring_view(&g->region, l, rows, K, &r) != CIOT_OK) return nullptr;
    return &(g->rings[key] = r);
}

const void *acts_for(const ciot_act_format *a, int batch, int K) {
    auto key = std::make_tuple(a, batch, K);
    auto it = g->acts.find(key);
    if (it != g->acts.end()) return it->second.data();
    std::vector<float> x(size_t(batch) * K);
    for (size_t j = 0; j < x.size(); j++) x[j] = float(int((j * 2654435761u) % 2001) - 1000) * 1e-3f;
    std::vector<unsigned char> q(ciot_act_bytes(a, batch, K));
    a->quantize(x.data(), q.data(), batch, K);
    return (g->acts[key] = std::move(q)).data();
}

void run_case(benchmark::State &st, size_t idx) {
    Case &c = g->cases[idx];
    const double ceiling = read_ceiling(c.threads);
    const ciot_weight_ring *ring = ring_for(c.k->layout, c.rows, c.K);
    if (!ring) {
        st.SkipWithError("the weight region does not fit in memory (lower --working-set)");
        return;
    }
    const void *x = acts_for(c.k->act, c.batch, c.K);
    std::vector<float> y(size_t(c.batch) * c.rows);
    ciot_pool *p = acquire_pool(c.kind, c.threads);
    if (!p) {
        st.SkipWithError("cannot create the thread pool");
        return;
    }
    long i = 0;
    double seconds = 0;
    for (auto _ : st) {
        ciot_mm mm = {ciot_weight_ring_at(ring, i++), x, y.data(), c.rows, c.K, c.batch, c.rows, CIOT_PREFETCH_DEFAULT};
        const uint64_t t0 = ciot_now_ns();
        ciot_run_parallel(p, c.k, &mm, CIOT_SPLIT_STATIC, 0);
        const double dt = double(ciot_now_ns() - t0) * 1e-9;
        st.SetIterationTime(dt);
        seconds += dt;
    }
    benchmark::DoNotOptimize(y.data());
    const double weights = double(c.rows) * c.K * c.batch * double(st.iterations());
    const double bytes = double(ring->bytes) * double(st.iterations());
    st.counters["Gweights/s"] = weights / seconds * 1e-9;
    st.counters["GB/s"] = bytes / seconds * 1e-9;
    if (c.k->op == CIOT_OP_GEMM) st.counters["GMAC/s"] = weights / seconds * 1e-9;
    st.counters["ceiling_GB/s"] = ceiling;
    st.counters["pct_ceiling"] = ceiling > 0 ? 100.0 * bytes / seconds * 1e-9 / ceiling : 0;
    st.SetLabel(std::string(c.kind == CIOT_POOL_PERSISTENT ? "persistent" : "spawn") + " pool, " +
                std::to_string(ring->copies) + " rotating weight copies");
}

void empty_task(void *, int, int) {}

// The cost of one pooled call with no work: publish, wake, run nothing, barrier (persistent), or
// create and join the threads (spawn).
void run_empty_job(benchmark::State &st, ciot_pool_kind kind, int threads) {
    ciot_pool *p = acquire_pool(kind, threads);
    if (!p) {
        st.SkipWithError("cannot create the thread pool");
        return;
    }
    for (auto _ : st) {
        const uint64_t t0 = ciot_now_ns();
        ciot_pool_run(p, empty_task, nullptr);
        st.SetIterationTime(double(ciot_now_ns() - t0) * 1e-9);
    }
    st.SetLabel(kind == CIOT_POOL_PERSISTENT ? "persistent pool" : "spawn pool");
}

// Forwards to the display reporter and keeps each repetition's counters (or, when the display shows
// aggregates only, the median / min / max aggregates) for the summary.
class Collector : public benchmark::BenchmarkReporter {
  public:
    explicit Collector(benchmark::BenchmarkReporter *out) : out_(out) {}
    bool ReportContext(const Context &c) override { return out_->ReportContext(c); }
    void ReportRuns(const std::vector<Run> &runs) override {
        for (const Run &r : runs) {
            if (r.error_occurred) continue;
            for (Case &c : g->cases) {
                if (c.name != r.run_name.function_name) continue;
                auto get = [&](const char *k) { auto it = r.counters.find(k); return it == r.counters.end() ? 0.0 : double(it->second); };
                if (r.run_type == Run::RT_Aggregate) {
                    for (auto &kv : r.counters) c.aggregates[r.aggregate_name][kv.first] = double(kv.second);
                    c.reps = int(r.repetitions);
                    continue;
                }
                c.gw.push_back(get("Gweights/s"));
                c.gbs.push_back(get("GB/s"));
                c.gmacs.push_back(get("GMAC/s"));
                c.ceiling = get("ceiling_GB/s");
            }
        }
        out_->ReportRuns(runs);
    }
    void Finalize() override { out_->Finalize(); }

  private:
    benchmark::BenchmarkReporter *out_;
};

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

int usage(FILE *f, int code) {
    fprintf(f,
            "usage: ciot bench [options] [Google Benchmark flags]\n"
            "  --shape RxK          gemv matrix (default 32768x8192)\n"
            "  --gemm-shape RxK     gemm matrix (default 17408x5120)\n"
            "  --batches LIST       gemm activation rows (default 4,64)\n"
            "  --threads LIST       thread counts (default 1 .. cores)\n"
            "  --kernels LIST       kernels whose name contains one of these (default: every available one)\n"
            "  --refs none|gemv|all scalar references to include (default gemv)\n"
            "  --no-spawn           leave out the spawn-per-call pool comparison\n"
            "  --no-pin             do not pin threads\n"
            "  --working-set BYTES  the weight region the copies rotate through (default max(4 x LLC, 1G),\n"
            "                       at most 40%% of available memory)\n"
            "  --ceiling-size BYTES buffer of the read-ceiling probe (default 1G)\n"
            "  --json FILE          shorthand for --benchmark_out=FILE --benchmark_out_format=json\n"
            "Defaults given to Google Benchmark unless set: --benchmark_repetitions=5,\n"
            "--benchmark_enable_random_interleaving=true, --benchmark_display_aggregates_only=true.\n"
            "Results files are written to a temporary name and renamed when the run completes.\n");
    return code;
}

bool parse_size(const char *s, size_t *out) {
    char *end;
    double v = strtod(s, &end);
    if (end == s || v <= 0) return false;
    switch (*end) {
    case 'k': case 'K': v *= 1024, end++; break;
    case 'm': case 'M': v *= 1048576, end++; break;
    case 'g': case 'G': v *= 1073741824.0, end++; break;
    default: break;
    }
    if (*end == 'i' || *end == 'B') end++;
    if (*end == 'B') end++;
    if (*end) return false;
    *out = size_t(v);
    return true;
}

bool parse_shape(const char *s, int *r, int *k) {
    char x;
    return sscanf(s, "%d%c%d", r, &x, k) == 3 && (x == 'x' || x == 'X') && *r > 0 && *k > 0;
}

bool parse_list(const char *s, std::vector<int> *out) {
    out->clear();
    for (const char *p = s; *p;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || v <= 0 || v > 4096) return false;
        out->push_back(int(v));
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') return false;
    }
    return !out->empty();
}

bool is_ref(const ciot_kernel *k) { return k->features == 0 && !strcmp(k->name, k->reference); }

}  // namespace

extern "C" int ciot_bench_main(int argc, char **argv, ciot_bench_row *rows, int max, int *n) {
    if (n) *n = 0;
    std::unique_ptr<Shared> shared(new Shared);
    g = shared.get();
    Options &o = g->opt;
    std::vector<std::string> passthrough{"ciot bench"};
    std::string out_path, out_tmp;
    bool have_reps = false, have_interleave = false, have_aggr = false;
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        auto value = [&](const char *opt) -> const char * {
            if (i + 1 >= argc) {
                fprintf(stderr, "ciot bench: %s needs a value\n", opt);
                return nullptr;
            }
            return argv[++i];
        };
        const char *v = nullptr;
        if (a == "--help" || a == "-h") return usage(stdout, 0);
        else if (a == "--shape") { if (!(v = value("--shape")) || !parse_shape(v, &o.gemv_rows, &o.gemv_k)) return fprintf(stderr, "ciot bench: --shape takes RxK, e.g. 32768x8192\n"), 2; }
        else if (a == "--gemm-shape") { if (!(v = value("--gemm-shape")) || !parse_shape(v, &o.gemm_rows, &o.gemm_k)) return fprintf(stderr, "ciot bench: --gemm-shape takes RxK\n"), 2; }
        else if (a == "--batches") { if (!(v = value("--batches")) || !parse_list(v, &o.batches)) return fprintf(stderr, "ciot bench: --batches takes positive numbers, e.g. 4,64\n"), 2; }
        else if (a == "--threads") { if (!(v = value("--threads")) || !parse_list(v, &o.threads)) return fprintf(stderr, "ciot bench: --threads takes thread counts of at least 1, e.g. 1,2\n"), 2; }
        else if (a == "--kernels") {
            if (!(v = value("--kernels"))) return 2;
            for (const char *p = v; *p;) { const char *e = strchr(p, ','); o.kernels.emplace_back(p, e ? size_t(e - p) : strlen(p)); p = e ? e + 1 : p + strlen(p); }
        } else if (a == "--refs") {
            if (!(v = value("--refs"))) return 2;
            if (!strcmp(v, "none")) o.refs = 0; else if (!strcmp(v, "gemv")) o.refs = 1; else if (!strcmp(v, "all")) o.refs = 2;
            else return fprintf(stderr, "ciot bench: --refs takes none, gemv or all\n"), 2;
        } else if (a == "--no-spawn") o.spawn = false;
        else if (a == "--no-pin") o.pin = false;
        else if (a == "--working-set") { if (!(v = value("--working-set")) || !parse_size(v, &o.working_set)) return fprintf(stderr, "ciot bench: --working-set takes a size such as 2G\n"), 2; }
        else if (a == "--ceiling-size") { if (!(v = value("--ceiling-size")) || !parse_size(v, &o.ceiling_bytes)) return fprintf(stderr, "ciot bench: --ceiling-size takes a size such as 1G\n"), 2; }
        else if (a == "--json") { if (!(v = value("--json"))) return 2; out_path = v; passthrough.push_back("--benchmark_out_format=json"); }
        else if (a.rfind("--benchmark_out=", 0) == 0) out_path = a.substr(16);
        else {
            have_reps |= a.rfind("--benchmark_repetitions", 0) == 0;
            have_interleave |= a.rfind("--benchmark_enable_random_interleaving", 0) == 0;
            have_aggr |= a.rfind("--benchmark_display_aggregates_only", 0) == 0 || a.rfind("--benchmark_report_aggregates_only", 0) == 0;
            if (a.rfind("--benchmark_", 0) != 0) {
                fprintf(stderr, "ciot bench: unknown option '%s'\n", argv[i]);
                return usage(stderr, 2);
            }
            passthrough.push_back(a);
        }
    }
    ciot_topology topo;
    ciot_topology_read(&topo);
    if (o.threads.empty())
        for (int t = 1; t <= topo.cores; t++) o.threads.push_back(t);
    if (!o.working_set) {
        int level;
        o.working_set = std::max(4 * ciot_topo_llc_bytes(&level), size_t(1) << 30);
        const size_t avail = ciot_mem_available();
        if (avail) o.working_set = std::min(o.working_set, avail / 10 * 4);
    }

    // Cases from the registry; every refusal is reported before any long work starts.
    const unsigned cpu = ciot_cpu_features();
    for (int i = 0; i < ciot_kernel_count(); i++) {
        const ciot_kernel *k = ciot_kernel_at(i);
        bool wanted = o.kernels.empty();
        for (auto &s : o.kernels) wanted |= strstr(k->name, s.c_str()) != nullptr;
        if (!wanted || ciot_kernel_missing(k, cpu)) continue;
        if (o.kernels.empty() && is_ref(k) && (o.refs == 0 || (o.refs == 1 && k->op == CIOT_OP_GEMM))) continue;
        const bool gemm = k->op == CIOT_OP_GEMM;
        const int R = gemm ? o.gemm_rows : o.gemv_rows, K = gemm ? o.gemm_k : o.gemv_k;
        if (ciot_layout_check(k->layout, R, K) != CIOT_OK) {
            fprintf(stderr, "ciot bench: %s cannot take %dx%d (rows must be a multiple of %d, K of %d)\n", k->name, R, K,
                    k->layout->tile_rows, k->layout->k_multiple);
            return 2;
        }
        for (int b : gemm ? o.batches : std::vector<int>{1})
            for (int t : o.threads)
                for (int pk = 0; pk < (o.spawn && !gemm ? 2 : 1); pk++) {
                    Case c{k, R, K, b, t, pk ? CIOT_POOL_SPAWN : CIOT_POOL_PERSISTENT, "", {}, {}, {}, {}, 0, 0};
                    c.name = std::string(k->name) + "/" + std::to_string(R) + "x" + std::to_string(K) +
                             (gemm ? "/batch:" + std::to_string(b) : "") + "/threads:" + std::to_string(t) +
                             (pk ? "/spawn" : "/persistent");
                    g->cases.push_back(c);
                }
    }
    if (g->cases.empty()) {
        fprintf(stderr, "ciot bench: no available kernel matches --kernels (ciot kernels lists them)\n");
        return 2;
    }
    // Memory: the shared weight region (at least one copy of the largest matrix) and the probe buffer.
    for (auto &c : g->cases) o.working_set = std::max(o.working_set, ciot_layout_bytes(c.k->layout, c.rows, c.K));
    const size_t total = o.ceiling_bytes + o.working_set;
    const size_t avail = ciot_mem_available();
    if (avail && total > avail / 10 * 9) {
        fprintf(stderr, "ciot bench: needs %.1f GiB (weight copies and probe buffer) but %.1f GiB is available; lower "
                        "--working-set or --ceiling-size, or select fewer --kernels\n",
                double(total) / (1 << 30), double(avail) / (1 << 30));
        return 2;
    }

    if (!have_reps) passthrough.push_back("--benchmark_repetitions=5");
    if (!have_interleave) passthrough.push_back("--benchmark_enable_random_interleaving=true");
    if (!have_aggr) passthrough.push_back("--benchmark_display_aggregates_only=true");
    if (!out_path.empty()) {
        out_tmp = out_path + ".tmp." + std::to_string(long(getpid()));
        passthrough.push_back("--benchmark_out=" + out_tmp);
    }
    std::vector<char *> bargv;
    for (auto &s : passthrough) bargv.push_back(&s[0]);
    int bargc = int(bargv.size());
    bargv.push_back(nullptr);
    benchmark::Initialize(&bargc, bargv.data());
    if (benchmark::ReportUnrecognizedArguments(bargc, bargv.data())) return 2;

    for (size_t i = 0; i < g->cases.size(); i++) {
        auto *b = benchmark::RegisterBenchmark(g->cases[i].name.c_str(), run_case, i);
        b->UseManualTime()->Unit(benchmark::kMillisecond);
        b->ComputeStatistics("min", [](const std::vector<double> &v) { return *std::min_element(v.begin(), v.end()); });
        b->ComputeStatistics("max", [](const std::vector<double> &v) { return *std::max_element(v.begin(), v.end()); });
    }
    for (int t : o.threads)
        for (int pk = 0; pk < (o.spawn ? 2 : 1); pk++) {
            const ciot_pool_kind kind = pk ? CIOT_POOL_SPAWN : CIOT_POOL_PERSISTENT;
            const std::string name = "pool_empty_job/threads:" + std::to_string(t) + (pk ? "/spawn" : "/persistent");
            benchmark::RegisterBenchmark(name.c_str(), run_empty_job, kind, t)
                ->UseManualTime()
                ->Unit(benchmark::kMicrosecond)
                ->ComputeStatistics("min", [](const std::vector<double> &v) { return *std::min_element(v.begin(), v.end()); })
                ->ComputeStatistics("max", [](const std::vector<double> &v) { return *std::max_element(v.begin(), v.end()); });
        }
    ciot_context ctx;
    ciot_context_collect(&ctx);
    benchmark::AddCustomContext("ciot_host", ctx.host);
    benchmark::AddCustomContext("ciot_cpu", ctx.cpu);
    benchmark::AddCustomContext("ciot_features", ctx.features);
    benchmark::AddCustomContext("ciot_compiler", ctx.compiler);
    benchmark::AddCustomContext("ciot_flags", ctx.flags);
    benchmark::AddCustomContext("ciot_commit", std::string(ctx.commit) + (ctx.dirty > 0 ? " (dirty)" : ""));
    benchmark::AddCustomContext("ciot_date", ctx.date);
    benchmark::AddCustomContext("ciot_cores", std::to_string(topo.cores));
    benchmark::AddCustomContext("ciot_llc_bytes", std::to_string(topo.llc_bytes));
    benchmark::AddCustomContext("ciot_pinning", o.pin ? "on (hwloc, one thread per core)" : "off");
    benchmark::AddCustomContext("ciot_working_set_bytes", std::to_string(o.working_set));
    benchmark::AddCustomContext("ciot_ceiling", "read probe median at the same thread count, this process, " +
                                                    std::to_string(o.ceiling_bytes) + "-byte buffer (counter ceiling_GB/s)");

    benchmark::ConsoleReporter console(isatty(fileno(stdout)) ? benchmark::ConsoleReporter::OO_ColorTabular
                                                              : benchmark::ConsoleReporter::OO_Tabular);
    Collector collect(&console);
    const size_t ran = benchmark::RunSpecifiedBenchmarks(&collect);
    g->pool_note.clear();
    if (ran == 0) {
        if (!out_tmp.empty()) remove(out_tmp.c_str());
        fprintf(stderr, "ciot bench: --benchmark_filter matched no benchmark\n");
        return 2;
    }
    if (!out_tmp.empty() && rename(out_tmp.c_str(), out_path.c_str()) != 0) {
        fprintf(stderr, "ciot bench: cannot write %s\n", out_path.c_str());
        return 1;
    }
    for (auto &c : g->cases) {
        const bool aggr = c.aggregates.count("median") && c.aggregates.count("min") && c.aggregates.count("max");
        if (!rows || !n || *n >= max || (c.gw.empty() && !aggr)) continue;
        ciot_bench_row &r = rows[(*n)++];
        memset(&r, 0, sizeof r);
        snprintf(r.kernel, sizeof r.kernel, "%s", c.k->name);
        snprintf(r.pool, sizeof r.pool, "%s", c.kind == CIOT_POOL_PERSISTENT ? "persistent" : "spawn");
        r.threads = c.threads, r.batch = c.batch, r.rows = c.rows, r.K = c.K;
        if (aggr) {  // the repetitions' statistics, as Google Benchmark computed them
            auto &md = c.aggregates["median"];
            r.gw_min = c.aggregates["min"]["Gweights/s"], r.gw_max = c.aggregates["max"]["Gweights/s"];
            r.gw_median = md["Gweights/s"], r.gbs_median = md["GB/s"], r.gmacs_median = md["GMAC/s"];
            r.ceiling_gbs = md["ceiling_GB/s"];
            r.reps = c.reps;
        } else {
            r.reps = int(c.gw.size());
            r.gw_min = *std::min_element(c.gw.begin(), c.gw.end());
            r.gw_max = *std::max_element(c.gw.begin(), c.gw.end());
            r.gw_median = median(c.gw), r.gbs_median = median(c.gbs), r.gmacs_median = median(c.gmacs);
            r.ceiling_gbs = c.ceiling;
        }
    }
    return 0;
}

extern "C" int ciot_cmd_bench(int argc, char **argv) { return ciot_bench_main(argc, argv, nullptr, 0, nullptr); }
