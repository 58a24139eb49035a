// ciot bench: registers Google Benchmark cases from the kernel registry. Each repetition of a case is one
// read-probe sample and the kernel's timed calls, on the same pool, alternating which goes first
// (measure.h); a gemm whose kernel multiplies with an int8 family also takes one compute-probe sample of
// that family beside the read sample, its compute roof (roof.h). The kernel's calls rotate through copies
// of the weights in a region of at least max(4 x LLC, 1 GiB) so every call starts cold. Counters per
// repetition: Gweights/s, GB/s of packed weights, GMAC/s (gemm), the paired probe's GB/s and the ratio, the
// compute sample and the ratio to the roof; bench_report.cc prints and writes them.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include <regex.h>
#include <unistd.h>

#include "bench_console.h"
#include "bench_run.h"

extern "C" {
#include "bench.h"
#include "bench_flags.h"
#include "bigbuf.h"
#include "cli.h"
#include "cpu.h"
#include "distinct_paths.h"
#include "gguf.h"
#include "output.h"
#include "parallel.h"
#include "progress.h"
#include "registry.h"
#include "split.h"
#include "sweep.h"
#include "topo.h"
}

using namespace ciot_bench;

namespace {

// State shared by the cases of this run.
struct Run {
    Options opt;
    std::vector<Case> cases;
    std::vector<Overhead> overheads;
    ciot_pool *pool = nullptr;
    ciot_pool_kind kind = CIOT_POOL_PERSISTENT;
    int pool_threads = 0;
    ciot_pool_info info{};
    ciot_weight_region region{};
    ciot_ruler ruler{};
    std::map<std::tuple<const ciot_layout *, int, int>, ciot_weight_ring> rings;
    std::map<std::tuple<const ciot_act_format *, int, int>, std::vector<unsigned char>> acts;
    int done = 0, total = 0;          // progress over every case repetition
    ciot_progress progress{};         // time left over the repetitions
    ciot_gguf *gguf = nullptr;
    std::map<std::pair<std::string, const ciot_layout *>, std::vector<unsigned char>> packed;   // --gguf
    const std::vector<unsigned char> *filled = nullptr;   // whose copies the weight region holds now
    ~Run() {
        if (gguf) ciot_gguf_close(gguf);
        if (pool) ciot_pool_destroy(pool);
        ciot_weight_region_free(&region);
        ciot_ruler_free(&ruler);
    }
};
Run *g;

// One pool alive at a time: idle spinning workers of a second pool would steal the cores.
ciot_pool *acquire_pool(ciot_pool_kind kind, int threads) {
    if (g->pool && g->kind == kind && g->pool_threads == threads) return g->pool;
    if (g->pool) ciot_pool_destroy(g->pool);
    g->pool = nullptr;
    ciot_pool_opts o = {threads, g->opt.pin ? 1 : 0, 0, 0};
    if (ciot_pool_create(kind, &o, &g->pool) != CIOT_OK) return nullptr;
    g->kind = kind, g->pool_threads = threads;
    ciot_pool_get_info(g->pool, &g->info);
    return g->pool;
}

const ciot_weight_ring *ring_for(const ciot_layout *l, int rows, int K) {
    auto key = std::make_tuple(l, rows, K);
    auto it = g->rings.find(key);
    if (it != g->rings.end()) return &it->second;
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

struct FillJob {
    const ciot_weight_ring *ring;
    const std::vector<unsigned char> *bytes;
};

void fill_task(void *arg, int t, int n) {
    const FillJob *j = static_cast<const FillJob *>(arg);
    int first, count;
    ciot_split_static(int(j->ring->copies), t, n, &first, &count);
    for (int i = first; i < first + count; i++)
        memcpy(const_cast<void *>(ciot_weight_ring_at(j->ring, i)), j->bytes->data(), j->bytes->size());
}

// --gguf: the weight region holds copies of the case's real tensor, packed in its layout. When another
// tensor or layout ran last, the pool copies this one over every slot of the ring and the rotation
// restarts at the first slot written (the region is at least 4 x LLC, so it left the cache first).
void ensure_filled(Case &c, ciot_pool *p) {
    if (!c.packed || g->filled == c.packed) return;
    FillJob j{c.ring, c.packed};
    ciot_pool_run(p, fill_task, &j);
    g->filled = c.packed;
    g->region.cursor = 0;
}

// One pooled call of the case's kernel on the next cold copy of its weights; seconds.
double call(Case &c, ciot_pool *p) {
    ciot_mm mm = {ciot_weight_ring_next(&g->region, c.ring), c.x, c.y.data(), c.rows, c.K, c.batch, c.rows,
                  g->opt.prefetch};
    const uint64_t t0 = ciot_now_ns();
    ciot_run_parallel(p, c.k, &mm, CIOT_SPLIT_STATIC, 0, NULL);
    return double(ciot_now_ns() - t0) * 1e-9;
}

void run_case(benchmark::State &st, size_t idx) {
    Case &c = g->cases[idx];
    ciot_pool *p = acquire_pool(c.kind, c.threads);
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

bool is_ref(const ciot_kernel *k) { return k->reference == k; }

// Options; returns -1 when the run should go on, else the exit code. GB flags are collected in passthrough.
int parse_args(int argc, char **argv, Options &o, std::vector<std::string> &passthrough) {
    const char *kernels = nullptr, *json = nullptr, *gguf = nullptr, *tensors = nullptr;
    int refs = 1, no_spawn = 0, no_pin = 0, prefetch_off = 0, pages_small = 0, rep_ms = 100, shape_given = 0;
    ciot_int_list batches{}, threads{};
    const ciot_opt opts[] = {
        {"--shape", CIOT_OPT_SHAPE, &o.gemv, 1, 1 << 28, nullptr, "RxK", "gemv matrix (default 32768x8192)", &shape_given},
        {"--gemm-shape", CIOT_OPT_SHAPE, &o.gemm, 1, 1 << 28, nullptr, "RxK", "gemm matrix (default 17408x5120)", &shape_given},
        {"--batches", CIOT_OPT_INT_LIST, &batches, 1, 4096, nullptr, "LIST", "gemm activation rows (default 4,64)", nullptr},
        {"--threads", CIOT_OPT_INT_LIST, &threads, 1, 1024, nullptr, "LIST", "thread counts, e.g. 1,2 or 1-4 (default 1 .. cores)", nullptr},
        {"--kernels", CIOT_OPT_LIST, &kernels, 0, 0, nullptr, "LIST",
         "kernels whose name contains one of these comma-separated words (default: every\navailable one)", nullptr},
        {"--kernel", CIOT_OPT_LIST, &kernels, 0, 0, nullptr, "LIST", "the same as --kernels", nullptr},
        {"--refs", CIOT_OPT_CHOICE, &refs, 0, 0, "none|gemv|all", "none|gemv|all",
         "scalar references to include when --kernels is not given (default gemv)", nullptr},
        {"--reps", CIOT_OPT_INT, &o.reps, 1, 1000, nullptr, "N", "repetitions, each paired with a probe sample (default 5)", nullptr},
        {"--rep-ms", CIOT_OPT_INT, &rep_ms, 1, 60000, nullptr, "MS",
         "a kernel repetition lasts at least MS (calls sized in a warm-up; default 100)", nullptr},
        {"--prefetch", CIOT_OPT_CHOICE, &prefetch_off, 0, 0, "on|off", "on|off",
         "software prefetch of the weights, for every kernel and the probe alike (default on:\n" CIOT_PREFETCH_TEXT ")", nullptr},
        {"--pages", CIOT_OPT_CHOICE, &pages_small, 0, 0, "huge|small", "huge|small",
         "page policy of the weights and the probe buffer alike (default huge: transparent\nhuge pages requested)", nullptr},
        {"--working-set", CIOT_OPT_SIZE, &o.working_set, 1 << 20, 1e18, nullptr, "BYTES",
         "the weight region the copies rotate through (default max(4 x LLC, 1G)); below\n4 x LLC the cases are labelled cache-resident", nullptr},
        {"--ceiling-size", CIOT_OPT_SIZE, &o.ceiling_bytes, 1 << 20, 1e18, nullptr, "BYTES",
         "the probe buffer (default and minimum max(4 x LLC, 1G))", nullptr},
        {"--no-spawn", CIOT_OPT_FLAG, &no_spawn, 0, 0, nullptr, nullptr, "leave out the spawn-per-call pool comparison", nullptr},
        {"--no-pin", CIOT_OPT_FLAG, &no_pin, 0, 0, nullptr, nullptr, "do not pin threads", nullptr},
        {"--gguf", CIOT_OPT_STRING, &gguf, 0, 0, nullptr, "FILE",
         "benchmark the 2-D ternary tensors of a GGUF file, their real bytes repacked at load,\n"
         "each at its own rows x K (instead of --shape and --gemm-shape)", nullptr},
        {"--tensors", CIOT_OPT_STRING, &tensors, 0, 0, nullptr, "REGEX", "with --gguf: the tensors whose name matches (POSIX extended)", nullptr},
        {"--json", CIOT_OPT_STRING, &json, 0, 0, nullptr, "FILE", "every case and repetition as JSON (results/SCHEMA.md)", nullptr},
    };

    const ciot_cmdline c = {
        "bench", "[options] [Google Benchmark flags]",
        "Google Benchmark runs of every available kernel: gemv, and gemm per batch, per thread count, on the\n"
        "persistent pool and (gemv) the spawn-per-call pool. Every repetition pairs the kernel with a read-probe\n"
        "sample on the same pool (a gemm whose kernel multiplies with an int8 family: and a compute-probe sample);\n"
        "ratios are taken per repetition, each row's to its own roof (results/SCHEMA.md). Google Benchmark 1.7\n"
        "flags pass through, their values checked first, except those ciot sets itself (--benchmark_repetitions:\n"
        "use --reps; --benchmark_min_time: use --rep-ms) and --benchmark_perf_counters (it counts the calling\n"
        "thread only).\n",
        opts, int(sizeof opts / sizeof opts[0]), "--benchmark_", 0};
    std::vector<char *> rest(size_t(argc) + 1);
    int n_rest = 0;
    int rc = ciot_opts_parse(&c, argc, argv, rest.data(), &n_rest);
    if (rc >= 0) return rc;
    for (int i = 0; i < n_rest; i++) {
        char why[256];
        if (ciot_bench_check_gb_flag(rest[size_t(i)], why, sizeof why) != CIOT_OK) return ciot_opts_fail(&c, "%s", why);
        passthrough.push_back(rest[size_t(i)]);
    }
    for (const char *p = kernels; p && *p;) {   // CIOT_OPT_LIST: no item is empty
        const size_t len = strcspn(p, ",");
        o.kernels.emplace_back(p, len);
        p += len + (p[len] == ',');
    }
    if (batches.n) o.batches = batches;
    else o.batches.v[0] = 4, o.batches.v[1] = 64, o.batches.n = 2;
    o.threads = threads;
    o.refs = refs, o.spawn = !no_spawn, o.pin = !no_pin, o.huge = !pages_small;
    o.prefetch = prefetch_off ? 0 : CIOT_PREFETCH_DEFAULT;
    o.rep_seconds = rep_ms * 1e-3;
    if (json) o.json = json;
    if (gguf) o.gguf = gguf;
    if (tensors) o.tensors = tensors;
    if (tensors && !gguf) return ciot_opts_fail(&c, "--tensors needs --gguf FILE");
    if (gguf && shape_given) return ciot_opts_fail(&c, "--shape and --gemm-shape do not apply to --gguf: each tensor has its own");
    const size_t cold = ciot_cold_bytes();
    char b1[32];
    if (o.ceiling_bytes && o.ceiling_bytes < cold)
        return ciot_opts_fail(&c, "--ceiling-size must be at least max(4 x LLC, 1G) = %s: a smaller probe buffer "
                                  "would measure the cache", ciot_format_bytes(cold, b1, sizeof b1));
    return -1;
}

// The cases of kernel k on a rows x K matrix (a tensor's when tensor is not empty): gemv, or gemm per batch,
// per thread count and pool, those whose name the filter matches.
void add_cases(const ciot_kernel *k, int rows, int K, const std::string &tensor, const std::vector<unsigned char> *packed,
               const regex_t *re) {
    const Options &o = g->opt;
    const bool gemm = k->op == CIOT_OP_GEMM;
    const std::vector<int> batches = gemm ? std::vector<int>(o.batches.v, o.batches.v + o.batches.n) : std::vector<int>{1};
    for (int b : batches)
        for (int ti = 0; ti < o.threads.n; ti++)
            for (int pk = 0; pk < (o.spawn && !gemm ? 2 : 1); pk++) {
                Case c{};
                c.k = k, c.rows = rows, c.K = K, c.batch = b, c.threads = o.threads.v[ti];
                c.kind = pk ? CIOT_POOL_SPAWN : CIOT_POOL_PERSISTENT;
                c.tensor = tensor, c.packed = packed;
                c.name = std::string(k->name) + "/" + (tensor.empty() ? "" : tensor + "/") + std::to_string(rows) + "x" +
                         std::to_string(K) + (gemm ? "/batch:" + std::to_string(b) : "") +
                         "/threads:" + std::to_string(c.threads) + "/" + pool_name(c.kind);
                if (!re || regexec(re, c.name.c_str(), 0, nullptr, 0) == 0) g->cases.push_back(c);
            }
}

bool wanted(const ciot_kernel *k, unsigned cpu) {
    const Options &o = g->opt;
    bool want = o.kernels.empty();
    for (auto &s : o.kernels) want |= strstr(k->name, s.c_str()) != nullptr;
    if (!want || ciot_kernel_missing(k, cpu)) return false;
    return !(o.kernels.empty() && is_ref(k) && (o.refs == 0 || (o.refs == 1 && k->op == CIOT_OP_GEMM)));
}

// Every --kernels word names some kernel of this build, and some selected kernel runs on this CPU; false
// after one line naming the word and its nearest kernel names, or what the CPU lacks.
bool kernel_words_ok(unsigned cpu) {
    const Options &o = g->opt;
    const ciot_kernel *unrunnable = nullptr;
    bool runs = o.kernels.empty();
    for (auto &w : o.kernels) {
        bool named = false;
        for (int i = 0; i < ciot_kernel_count(); i++) {
            const ciot_kernel *k = ciot_kernel_at(i);
            if (!strstr(k->name, w.c_str())) continue;
            named = true;
            if (!ciot_kernel_missing(k, cpu)) runs = true;
            else if (!unrunnable) unrunnable = k;
        }
        if (named) continue;
        char near[512];
        ciot_kernel_suggest(w.c_str(), 1, near, sizeof near);
        ciot_say("bench", "--kernels '%s' is in no kernel's name (%s%s%sciot kernels lists them)", w.c_str(),
                 *near ? "nearest: " : "", near, *near ? "; " : "");
        return false;
    }
    if (runs) return true;
    char need[128];
    ciot_say("bench", "--kernels names no kernel this CPU runs (%s needs %s, which this CPU lacks; ciot kernels)",
             unrunnable->name, ciot_feature_list(ciot_kernel_missing(unrunnable, cpu), need, sizeof need));
    return false;
}

// One line: the shape option and the rule of the layouts that refuse it (registry.h); returns the exit code.
int shape_refused(const std::vector<const ciot_kernel *> &ks, int gemm) {
    const ciot_shape s = gemm ? g->opt.gemm : g->opt.gemv;
    std::vector<const ciot_layout *> ls;
    for (const ciot_kernel *k : ks) ls.push_back(k->layout);
    char why[512], who[96];
    ciot_shape_refusal(ls.data(), int(ls.size()), s.rows, s.K, why, sizeof why);
    if (ks.size() == 1) snprintf(who, sizeof who, "%s", ks[0]->name);
    else snprintf(who, sizeof who, "%zu selected %s kernels", ks.size(), gemm ? "gemm" : "gemv");
    ciot_say("bench", "%s %dx%d does not fit %s: %s", gemm ? "--gemm-shape" : "--shape", s.rows, s.K, who, why);
    return 2;
}

// --gguf: every 2-D ternary tensor matching --tensors, packed once per layout that takes it (the bytes a
// runtime would have after loading), and its cases. Returns -1 when fine, else the exit code.
int make_gguf_cases(const regex_t *re) {
    const Options &o = g->opt;
    char why[512];
    ciot_status st = ciot_gguf_open(o.gguf.c_str(), &g->gguf, why, sizeof why);
    if (st != CIOT_OK) {
        ciot_say("bench", "%s: %s", o.gguf.c_str(), why);
        return st == CIOT_E_NOMEM ? 1 : 2;
    }
    regex_t tre;
    if (!o.tensors.empty() && regcomp(&tre, o.tensors.c_str(), REG_EXTENDED | REG_NOSUB) != 0) {
        ciot_say("bench", "--tensors '%s' is not a regular expression", o.tensors.c_str());
        return 2;
    }
    const unsigned cpu = ciot_cpu_features();
    int rc = -1, matrices = 0;
    for (int i = 0; i < ciot_gguf_tensor_count(g->gguf) && rc < 0; i++) {
        const ciot_gguf_tensor *t = ciot_gguf_tensor_at(g->gguf, i);
        ciot_format f;
        int rows, K;
        if (!ciot_gguf_tensor_matrix(t, &f, &rows, &K)) continue;
        if (!o.tensors.empty() && regexec(&tre, t->name, 0, nullptr, 0) != 0) continue;
        matrices++;
        std::vector<unsigned char> src(static_cast<const unsigned char *>(t->data),
                                       static_cast<const unsigned char *>(t->data) + t->bytes);   /* aligned copy */
        for (int ki = 0; ki < ciot_kernel_count() && rc < 0; ki++) {
            const ciot_kernel *k = ciot_kernel_at(ki);
            if (k->layout->source != f || ciot_layout_check(k->layout, rows, K) != CIOT_OK || !wanted(k, cpu)) continue;
            auto key = std::make_pair(std::string(t->name), k->layout);
            if (!g->packed.count(key)) {
                std::vector<unsigned char> w(ciot_layout_bytes(k->layout, rows, K));
                if ((st = ciot_layout_pack(k->layout, src.data(), w.data(), rows, K)) != CIOT_OK) {
                    fprintf(stderr, "ciot bench: %s: packing for %s failed: %s\n", t->name, k->layout->name, ciot_status_str(st));
                    rc = 1;
                    break;
                }
                g->packed[key] = std::move(w);
            }
            add_cases(k, rows, K, t->name, &g->packed[key], re);
        }
    }
    if (!o.tensors.empty()) regfree(&tre);
    if (rc < 0 && !matrices) {
        ciot_say("bench", "%s has no 2-D ternary tensor%s%s", o.gguf.c_str(),
                 o.tensors.empty() ? "" : " matching ", o.tensors.c_str());
        rc = 2;
    }
    return rc;
}

// Cases from the registry, filtered; returns -1 when fine, else the exit code (message printed).
int make_cases(const std::string &filter) {
    Options &o = g->opt;
    regex_t re;
    if (!filter.empty() && regcomp(&re, filter.c_str(), REG_EXTENDED | REG_NOSUB) != 0) {
        ciot_say("bench", "--benchmark_filter '%s' is not a regular expression", filter.c_str());
        return 2;
    }
    const regex_t *fre = filter.empty() ? nullptr : &re;
    const unsigned cpu = ciot_cpu_features();
    int rc = kernel_words_ok(cpu) ? -1 : 2;
    if (rc < 0 && !o.gguf.empty()) {
        rc = make_gguf_cases(fre);
    } else if (rc < 0) {
        std::vector<const ciot_kernel *> refused[2];   // per op: the selected kernels whose layout refuses the shape
        for (int i = 0; i < ciot_kernel_count(); i++) {
            const ciot_kernel *k = ciot_kernel_at(i);
            if (!wanted(k, cpu)) continue;
            const ciot_shape s = k->op == CIOT_OP_GEMM ? o.gemm : o.gemv;
            if (ciot_layout_check(k->layout, s.rows, s.K) != CIOT_OK) refused[k->op == CIOT_OP_GEMM].push_back(k);
            else add_cases(k, s.rows, s.K, "", nullptr, fre);
        }
        for (int gemm = 0; gemm < 2 && rc < 0; gemm++)
            if (!refused[gemm].empty()) rc = shape_refused(refused[gemm], gemm);
    }
    for (int ti = 0; ti < o.threads.n && rc < 0; ti++)
        for (int pk = 0; pk < (o.spawn ? 2 : 1); pk++) {
            const ciot_pool_kind kind = pk ? CIOT_POOL_SPAWN : CIOT_POOL_PERSISTENT;
            Overhead ov{o.threads.v[ti], kind, "pool_empty_job/threads:" + std::to_string(o.threads.v[ti]) + "/" + pool_name(kind), {}};
            if (!fre || regexec(fre, ov.name.c_str(), 0, nullptr, 0) == 0) g->overheads.push_back(ov);
        }
    if (fre) regfree(&re);
    if (rc < 0 && g->cases.empty()) {
        fprintf(stderr, "ciot bench: no available kernel matches --kernels%s%s (ciot kernels lists them)\n",
                filter.empty() ? "" : " and --benchmark_filter", o.gguf.empty() ? "" : " and takes a tensor of the file");
        rc = 2;
    }
    return rc;
}

// Memory for the weight region and the probe buffer; returns -1 when it fits, else the exit code.
int settle_memory() {
    Options &o = g->opt;
    const size_t cold = ciot_cold_bytes();
    if (!o.working_set) o.working_set = cold;
    if (!o.ceiling_bytes) o.ceiling_bytes = cold;
    for (auto &c : g->cases) o.working_set = std::max(o.working_set, ciot_layout_bytes(c.k->layout, c.rows, c.K));
    const size_t total = o.ceiling_bytes + o.working_set, avail = ciot_mem_available();
    if (avail && total > ciot_mem_cap(avail)) {
        fprintf(stderr, "ciot bench: needs %.1f GiB (weight region and probe buffer) but %.1f GiB is available; lower "
                        "--working-set, or select fewer or smaller --kernels/--shape\n",
                double(total) / (1 << 30), double(avail) / (1 << 30));
        return 2;
    }
    return -1;
}

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
        c.x = acts_for(c.k->act, c.batch, c.K);
        c.y.assign(size_t(c.batch) * size_t(c.rows), 0.0f);
        ciot_pool *cp = acquire_pool(c.kind, c.threads);
        if (!c.ring || !cp) {
            fprintf(stderr, "ciot bench: %s: cannot %s\n", c.name.c_str(), cp ? "view the weight region" : "create the pool");
            return 1;
        }
        char note[128];
        c.pinning = ciot_pinning_note(o.pin, g->info.pinned, c.threads, note, sizeof note);
        c.priority = g->info.priority;
        fprintf(stderr, "\rciot bench: warming up and sizing %d/%zu", ++step, g->cases.size());
        ensure_filled(c, cp);
        call(c, cp);                                // page walks, pool wake-up, caches of the code
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

// A read-probe sample runs every plan of the policy (probe_bw.c: one stream or several, with and without
// the prefetch), each in whole passes of the buffer until they last probe_seconds.
constexpr int kReadPlans = 4;
double probe_sample_seconds(size_t bytes, double probe_seconds, double gbs) {
    const double pass = double(bytes) / (gbs * 1e9);
    return kReadPlans * std::max(1.0, std::ceil(probe_seconds / pass)) * pass;
}

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

int max_threads() { return *std::max_element(g->opt.threads.v, g->opt.threads.v + g->opt.threads.n); }

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

}  // namespace

// An estimate of a run's length before anything is allocated: the read rate guessed at a modest
// per-thread figure, the calls at --rep-ms. Returns -1 when argv is fine, else the exit code.
extern "C" int ciot_bench_estimate(int argc, char **argv, double *seconds, int *cases) {
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
    constexpr double kGuessGbsPerThread = 10;
    *seconds = estimate_seconds(kGuessGbsPerThread * max_threads(), max_threads());
    *cases = int(g->cases.size());
    return -1;
}

extern "C" int ciot_bench_main(int argc, char **argv, ciot_bench_row *rows, int max, int *n) {
    if (n) *n = 0;
    std::unique_ptr<Run> run(new Run);
    g = run.get();
    Options &o = g->opt;
    std::vector<std::string> passthrough{"ciot bench"};
    std::vector<std::string> gb_flags;
    int rc = parse_args(argc, argv, o, gb_flags);
    if (rc >= 0) return rc;
    bool have_interleave = false, have_aggr = false, have_unit = false, other_format = false;
    std::string gb_out_path;       // Google Benchmark's own --benchmark_out, written through ciot_out
    for (auto &a : gb_flags) {     // names and values checked by parse_args (bench_flags.h); the last one counts
        have_interleave |= a.rfind("--benchmark_enable_random_interleaving", 0) == 0;
        have_aggr |= a.rfind("--benchmark_display_aggregates_only", 0) == 0 || a.rfind("--benchmark_report_aggregates_only", 0) == 0;
        have_unit |= a.rfind("--benchmark_time_unit=", 0) == 0;
        if (a.rfind("--benchmark_format=", 0) == 0) other_format = a != "--benchmark_format=console";
        if (a.rfind("--benchmark_out=", 0) == 0) gb_out_path = a.substr(16);
        else passthrough.push_back(a);
    }
    const ciot_named_path files[] = {
        {"--gguf", o.gguf.empty() ? nullptr : o.gguf.c_str(), CIOT_PATH_INPUT, nullptr},
        {"--json", o.json.empty() ? nullptr : o.json.c_str(), CIOT_PATH_OUTPUT, nullptr},
        {"--benchmark_out", gb_out_path.empty() ? nullptr : gb_out_path.c_str(), CIOT_PATH_OUTPUT, nullptr},
    };
    if ((rc = ciot_distinct_paths("bench", files, int(sizeof files / sizeof files[0]))) >= 0) return rc;
    // Google Benchmark writes its file by name: it gets the temporary file of a checked output.
    char why[CIOT_WHY_MAX];
    std::unique_ptr<ciot_out, void (*)(ciot_out *)> gb_out(nullptr, ciot_out_abort);   // aborted unless committed
    if (!gb_out_path.empty()) {
        ciot_out *out;
        if (ciot_out_open(gb_out_path.c_str(), &out, why, sizeof why) != CIOT_OK) {
            fprintf(stderr, "ciot bench: --benchmark_out %s\n", why);
            return 2;
        }
        gb_out.reset(out);
        passthrough.push_back(std::string("--benchmark_out=") + ciot_out_temp_path(out));
    }
    if (!have_interleave) passthrough.push_back("--benchmark_enable_random_interleaving=true");
    if (!have_aggr) passthrough.push_back("--benchmark_display_aggregates_only=true");
    std::vector<char *> bargv;
    for (auto &s : passthrough) bargv.push_back(&s[0]);
    int bargc = int(bargv.size());
    bargv.push_back(nullptr);
    benchmark::Initialize(&bargc, bargv.data());
    if (benchmark::ReportUnrecognizedArguments(bargc, bargv.data())) return 2;

    if (!o.threads.n) ciot_sweep_default_threads(&o.threads);
    for (int i = 0; i < o.threads.n; i++)
        if (ciot_warn_oversubscribed("bench", o.threads.v[i])) break;
    if ((rc = make_cases(benchmark::GetBenchmarkFilter())) >= 0) return rc;
    if ((rc = settle_memory()) >= 0) return rc;
    // Output paths are checked before the long work: their temporary files are created now (and removed
    // on an interruption, harness/io/tmpfiles.h).
    std::unique_ptr<ciot_json, void (*)(ciot_json *)> json(nullptr, ciot_json_discard);   // discarded unless committed
    if (!o.json.empty()) {
        ciot_json *j;
        if (ciot_json_create(o.json.c_str(), &j, why, sizeof why) != CIOT_OK) {
            fprintf(stderr, "ciot bench: --json %s\n", why);
            return 2;
        }
        json.reset(j);
    }
    ciot_context ctx;
    ciot_context_collect(&ctx);
    if (ciot_cache_resident(o.working_set))
        fprintf(stderr, "ciot bench: warning: the weight region is below 4 x LLC (%s): every case is labelled "
                        "cache-resident\n", ctx.llc_source);
    if ((rc = prepare()) >= 0) return rc;

    // Manual time, o.reps repetitions with min and max; the unit is ms (kernels) or us (pool overhead)
    // unless --benchmark_time_unit chose one: an explicit Unit() would override the flag.
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
    g->total = int(g->cases.size()) * o.reps;
    announce_estimate();
    benchmark::AddCustomContext("ciot_commit", std::string(ctx.commit) + (ctx.dirty > 0 ? " (dirty)" : ""));
    benchmark::AddCustomContext("ciot_protocol", "each repetition paired with a read-probe sample on the same pool "
                                                 "(counters probe_GB/s, pct_ceiling), gemm rows with a compute family "
                                                 "with a compute-probe sample too (compute_GMAC/s; pct_roof: the "
                                                 "ratio to the roof); ciot bench --json has them all");
    Console console;
    benchmark::RunSpecifiedBenchmarks(&console);
    benchmark::Shutdown();

    ciot_context_finish(&ctx);
    print_summary(other_format ? stderr : stdout, o, g->cases, g->ruler, g->region);
    rc = 0;
    if (gb_out && ciot_out_commit(gb_out.release(), why, sizeof why) != CIOT_OK) {
        fprintf(stderr, "ciot bench: --benchmark_out %s\n", why);
        rc = 1;
    }
    if (json) {
        write_json(json.get(), o, g->cases, g->overheads, &ctx, g->ruler, g->region);
        if (ciot_json_commit(json.release(), why, sizeof why) != CIOT_OK) {
            fprintf(stderr, "ciot bench: --json %s\n", why);
            rc = 1;
        }
    }
    for (auto &c : g->cases) {
        if (!rows || !n || *n >= max || c.reps.empty()) continue;
        const Summary s = summarize(c);
        ciot_bench_row &r = rows[(*n)++];
        memset(&r, 0, sizeof r);
        snprintf(r.kernel, sizeof r.kernel, "%s", c.k->name);
        snprintf(r.pool, sizeof r.pool, "%s", pool_name(c.kind));
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
    }
    return rc;
}

extern "C" int ciot_cmd_bench(int argc, char **argv) { return ciot_bench_main(argc, argv, nullptr, 0, nullptr); }
