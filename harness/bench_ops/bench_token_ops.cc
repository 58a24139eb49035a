// bench_token_ops: GB/s of the token ops that move the most (deltanet, attention at a context length,
// state_copy) per version and thread count, each repetition paired with one sample of the replay's ruler of
// that kind on the same pool (profiles/replay_ruler.c: read for attention, update for DeltaNet's in-place
// states, the copy of the version's stores for the state copy), over the calls' working set and with the
// prefetch policy (harness/measure/method.md; which of the two goes first alternates). Every call starts
// cold: the calls rotate over as many blocks' states or caches (and DeltaNet's conv taps and gate
// parameters) as fill max(4 x LLC, the op's own size x 2); only the input activations, which the token's
// matvec before the op has just written, are shared and warm.
// Counters: GB/s (ciot_<kind>_bytes over the time), ceiling GB/s (the paired sample of the ruler), pct
// (their ratio); compute GB/s (the op's bytes at its fp32 work's pace: ciot_op_traffic's fmas and widened
// values at the paired samples of the compute probe's fma32 and f16fma sequences of the version's ISA,
// whichever takes longer), roof GB/s (the lower of the ceiling and compute GB/s) and pct_roof; the label
// names the bound: the ruler or the sequence. A scalar reference has no compute roof (as a gemm's has none).
// attention-hot/L=255 and L=1023 are the exception: one instance (1 or 4 MiB of cache, one or four chunks per
// KV head) called again and again, so it runs from cache and its GB/s is the loop's compute rate, the bound
// the DRAM runs can approach; L=1023 spreads the call's fixed costs (append, combine, two barriers) over four
// times the positions. deltanet-hot likewise calls one block (3 MiB of states) again and again: the state
// pass's rate from L2 and L3, the bound its DRAM run can approach.
// --peer MODULE[,MODULE] adds each runtime's own op per cold row (a peer module: deltanet, attention/L, state_copy),
// at ciot's shape and instance count, its bytes counted by ciot's traffic model of that shape.
// usage: bench_token_ops [--peer LIST] [--benchmark_filter=REGEX] [--benchmark_repetitions=N] ...
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <tuple>
#include <utility>
#include <algorithm>
#include <string>
#include <vector>

extern "C" {
#include "bigbuf.h"
#include "cpu.h"
#include "fp16.h"
#include "measure.h"
#include "peer.h"
#include "pin.h"
#include "pool.h"
#include "prefetch.h"
#include "probe_bw.h"
#include "probe_compute.h"
#include "replay_ruler.h"
#include "splitmix64.h"
#include "token_kind.h"
#include "topo.h"
}

namespace {

struct Phase {
    const ciot_token_ops *v;
    const ciot_token_kind *kind;
    const void *args;
    int phase;
};

void run_phase(void *arg, int t, int n) {
    const Phase *p = static_cast<const Phase *>(arg);
    ciot_token_run(p->kind, p->v, p->args, p->phase, t, n);
}

struct Pool {
    ciot_pool *pool = nullptr;
    int threads = 0;
    void *probe = nullptr;
    size_t probe_bytes = 0;
    ciot_pool_kind kind = CIOT_POOL_PERSISTENT;
    // A runtime's row samples its ruler on the spawn pool: no idle ciot thread spins beside the runtime's.
    ciot_pool *get(int n, ciot_pool_kind k = CIOT_POOL_PERSISTENT) {
        if (pool && threads == n && kind == k) return pool;
        if (pool) ciot_pool_destroy(pool), ciot_bw_buffer_free(probe, probe_bytes), probe = nullptr;
        ciot_pool_opts o = {n, 1, 0, 0};
        if (ciot_pool_create(k, &o, &pool) != CIOT_OK) return pool = nullptr;
        threads = n, kind = k;
        size_t llc = ciot_topo_llc_bytes(nullptr);
        probe_bytes = std::max<size_t>(4 * llc, size_t(1) << 30);
        if (ciot_bw_buffer_alloc(pool, probe_bytes, 1, &probe) != CIOT_OK) probe = nullptr;
        return pool;
    }
} g_pool;

// Untimed fill: values are drawn once; the ops' speed does not depend on them (no data-dependent branch).
void fill(float *x, size_t n, uint64_t seed, float scale) {
    for (size_t i = 0; i < n; i++)
        x[i] = scale * (float)((int64_t)(ciot_splitmix64_at(seed, i) >> 40) - (1 << 23)) / (float)(1 << 23);
}
void *big(size_t bytes) {
    void *p = ciot_bigbuf_alloc(bytes, 1);
    if (p) std::memset(p, 0, bytes);
    return p;
}

size_t cold_bytes() { return std::max<size_t>(4 * ciot_topo_llc_bytes(nullptr), size_t(128) << 20); }

// One instance per block; calls go round them.
struct Instances {
    ciot_step_kind kind;
    std::vector<ciot_deltanet_args> dn;
    std::vector<ciot_attention_args> at;
    std::vector<ciot_state_copy_args> sc;
    std::vector<std::pair<void *, size_t>> bufs;
    size_t count() const { return kind == CIOT_STEP_DELTANET ? dn.size() : kind == CIOT_STEP_ATTENTION ? at.size() : sc.size(); }
    const void *args(size_t i) const {
        return kind == CIOT_STEP_DELTANET ? (const void *)&dn[i] : kind == CIOT_STEP_ATTENTION ? (const void *)&at[i] : (const void *)&sc[i];
    }
    // the kind's bytes moved and fp32 work, and its phases, from its descriptor
    ciot_op_traffic traffic(size_t i) const {
        ciot_op_traffic t;
        ciot_token_kind_of(kind)->traffic(args(i), &t);
        return t;
    }
    size_t bytes(size_t i) const {
        const ciot_op_traffic t = traffic(i);
        return ciot_op_traffic_total(&t);
    }
    int phases(size_t i) const { return ciot_token_kind_of(kind)->phases(args(i)); }
    void *alloc(size_t b) {
        void *p = big(b);
        if (!p) { std::fprintf(stderr, "bench_token_ops: cannot allocate %zu bytes\n", b); std::exit(1); }
        bufs.push_back({p, b});
        return p;
    }
    ~Instances() { for (auto &b : bufs) ciot_bigbuf_free(b.first, b.second); }
};

// Bonsai 2 27B's DeltaNet block: 16 key heads, 48 value heads, head dim 128, conv 4.
void make_deltanet(Instances &in, bool hot) {
    in.kind = CIOT_STEP_DELTANET;
    ciot_deltanet_args a{};
    a.k_heads = 16, a.v_heads = 48, a.head_dim = 128, a.conv = 4, a.eps = 1e-6f, a.prefetch = CIOT_PREFETCH_DEFAULT;
    size_t ch = (2 * 16 + 48) * 128, state = 48 * 128 * 128;
    size_t blocks = hot ? 1 : std::max<size_t>(48, cold_bytes() / (state * 4) + 1);
    // The block's input activations are shared, as in the token (the matvec before it has just written them);
    // its parameters (conv taps, a_log, dt_bias) are its own, so its phase 0 reads them cold as the token does.
    float *qkv = (float *)in.alloc(ch * 4), *gates = (float *)in.alloc(2 * 48 * 4);
    fill(qkv, ch, 1, 1.0f), fill(gates, 2 * 48, 2, 1.0f);
    float *out = (float *)in.alloc(48 * 128 * 4);
    for (size_t b = 0; b < blocks; b++) {
        ciot_deltanet_args x = a;
        float *par = (float *)in.alloc((4 * ch + 2 * 48) * 4);
        fill(par, 4 * ch, 3 + 1000 * b, 0.5f), fill(par + 4 * ch, 2 * 48, 4 + 1000 * b, 1.0f);
        x.qkv = qkv, x.alpha = gates, x.beta_in = gates + 48;
        x.conv_w = par, x.a_log = par + 4 * ch, x.dt_bias = par + 4 * ch + 48;
        x.out = out;
        x.conv_state = (float *)in.alloc(3 * ch * 4);
        x.state = (float *)in.alloc(state * 4);
        fill(x.state, state, 10 + b, 0.05f);
        x.scratch = in.alloc(ciot_deltanet_scratch_bytes(&x));
        in.dn.push_back(x);
    }
}

// Bonsai's attention block at L positions: 24 query heads, 4 KV heads, head dim 256.
void make_attention(Instances &in, int L, bool hot) {
    in.kind = CIOT_STEP_ATTENTION;
    ciot_attention_args a{};
    a.q_heads = 24, a.kv_heads = 4, a.head_dim = 256, a.q_stride = 512, a.L = L, a.capacity = L + 1;
    a.scale = 1.0f / 16.0f;
    size_t cache = size_t(4) * (L + 1) * 256 * 2, blocks = hot ? 1 : std::max<size_t>(2, cold_bytes() / (2 * cache) + 1);
    float *q = (float *)in.alloc(24 * 512 * 4), *kv = (float *)in.alloc(2 * 1024 * 4), *out = (float *)in.alloc(24 * 256 * 4);
    fill(q, 24 * 512, 4, 1.0f), fill(kv, 2048, 5, 1.0f);
    for (size_t b = 0; b < blocks; b++) {
        ciot_attention_args x = a;
        x.q = q, x.gate = q + 256, x.k = kv, x.v = kv + 1024, x.out = out;
        x.k_cache = (uint16_t *)in.alloc(cache), x.v_cache = (uint16_t *)in.alloc(cache);
        for (size_t i = 0; i < cache / 2; i++) {
            float f = (float)((int)(ciot_splitmix64_at(20 + b, i) >> 54) - 512) / 512.0f;
            x.k_cache[i] = ciot_fp32_to_fp16(f), x.v_cache[i] = ciot_fp32_to_fp16(-f);
        }
        x.scratch = in.alloc(ciot_attention_scratch_bytes(&x));
        in.at.push_back(x);
    }
}

// The state snapshot of one DeltaNet block (3 MiB) per call, over 48 blocks' sources and destinations.
void make_state_copy(Instances &in) {
    in.kind = CIOT_STEP_STATE_COPY;
    size_t bytes = size_t(3) << 20, blocks = std::max<size_t>(48, cold_bytes() / bytes + 1);
    char *src = (char *)in.alloc(bytes * blocks), *dst = (char *)in.alloc(bytes * blocks);
    for (size_t b = 0; b < blocks; b++) in.sc.push_back({src + b * bytes, dst + b * bytes, bytes});
}

// The runtime's op of a --peer row, one alive at a time (bench_peer), gone with the instances of its op.
std::unique_ptr<ciot_peer_op, void (*)(ciot_peer_op *)> g_peer_op{nullptr, nullptr};
std::tuple<ciot_peer *, int, int, int> g_peer_key{nullptr, -1, -1, 0};

// One op's instances alive at a time, kept across its versions, thread counts, runtimes and repetitions.
Instances &instances_of(ciot_step_kind kind, int L, bool hot) {
    static std::unique_ptr<Instances> held;
    static std::tuple<int, int, bool> held_key{-1, -1, false};
    if (held_key != std::make_tuple((int)kind, L, hot)) {
        g_peer_op.reset(), g_peer_key = {nullptr, -1, -1, 0};
        held.reset();
        held.reset(new Instances);
        held_key = {(int)kind, L, hot};
        if (kind == CIOT_STEP_DELTANET) make_deltanet(*held, hot);
        else if (kind == CIOT_STEP_ATTENTION) make_attention(*held, L, hot);
        else make_state_copy(*held);
    }
    return *held;
}

// The compute probe's two fp32 sequences a version's loops issue (kernels/isa.def): fused multiply-adds, and
// the same with an operand widened from fp16. A runtime's op is held to the widest this CPU runs.
struct FmaFamilies {
    bool has = false;
    ciot_compute_family fma{}, f16{};
};
FmaFamilies fma_families(const char *version) {
    const struct { const char *version, *fma, *f16; } rows[] = {{"avx512f", "fma32_avx512", "f16fma_avx512"},
                                                                 {"avx2", "fma32_avx2", "f16fma_avx2"},
                                                                 {"neon", "fma32_neon", "f16fma_neon"}};
    FmaFamilies out;
    for (const auto &r : rows) {
        if (version && std::strcmp(version, r.version)) continue;
        if (ciot_compute_family_parse(r.fma, &out.fma) == CIOT_OK && ciot_compute_family_parse(r.f16, &out.f16) == CIOT_OK &&
            ciot_compute_available(out.fma) && ciot_compute_available(out.f16)) {
            out.has = true;
            return out;
        }
        if (version) break;
    }
    return FmaFamilies{};
}

// One compute-probe sample of family f on g_pool's pool, short beside the op's repetition (its length sized
// once per family and pool).
enum { kComputeSampleMs = 20 };
double compute_sample(ciot_compute_family f) {
    static std::vector<std::tuple<ciot_pool *, int, uint64_t>> sized;
    uint64_t iters = 0;
    for (auto &z : sized)
        if (std::get<0>(z) == g_pool.pool && std::get<1>(z) == int(f)) iters = std::get<2>(z);
    if (!iters) {
        if (ciot_compute_size(g_pool.pool, f, kComputeSampleMs * 1e-3, &iters) != CIOT_OK) return 0;
        sized.emplace_back(g_pool.pool, int(f), iters);
    }
    double gmacs = 0;
    return ciot_compute_sample(g_pool.pool, f, iters, &gmacs) == CIOT_OK ? gmacs : 0;
}

// Every counter of a row (ciot's or a runtime's) that ran at gbs, a call moving t's bytes with t's fp32 work,
// its ruler sampled at ceiling GB/s.
void report(benchmark::State &st, double gbs, double ceiling, const ciot_op_traffic &t, const FmaFamilies &fam,
            const std::string &label) {
    const double bytes = double(ciot_op_traffic_total(&t));
    st.counters["GB/s"] = gbs;
    st.counters["ceiling_GB/s"] = ceiling;
    st.counters["pct"] = ceiling > 0 ? 100.0 * gbs / ceiling : 0;
    st.counters["MB/call"] = bytes / 1e6;
    double compute = 0;
    std::string bound = "the ruler";
    if (fam.has && (t.fmas || t.widened)) {
        const double fma = compute_sample(fam.fma), f16 = compute_sample(fam.f16);   // G per s
        const double ns_fma = fma > 0 ? double(t.fmas) / fma : 0, ns_f16 = f16 > 0 ? double(t.widened) / f16 : 0;
        const double ns = std::max(ns_fma, ns_f16);
        compute = ns > 0 ? bytes / ns : 0;
        if (compute > 0 && compute < ceiling) bound = ciot_compute_family_name(ns_f16 > ns_fma ? fam.f16 : fam.fma);
    }
    const double roof = compute > 0 ? std::min(ceiling, compute) : ceiling;
    st.counters["compute_GB/s"] = compute;
    st.counters["roof_GB/s"] = roof;
    st.counters["pct_roof"] = roof > 0 ? 100.0 * gbs / roof : 0;
    st.SetLabel(label + ", bound: " + bound);
}

// One sample of the ruler over one round of calls moving `round` bytes, on g_pool's pool.
double ruler_sample(ciot_bw_kind ruler, size_t round) {
    ciot_ruler r{};
    r.bytes = g_pool.probe_bytes;
    const size_t span = ciot_ruler_span(&r, ruler, round);
    double gbs = 0;
    int passes = 0;
    ciot_bw_sample_kind(g_pool.pool, ruler, g_pool.probe, span, 0.2, CIOT_PREFETCH_DEFAULT, &gbs, &passes);
    return gbs;
}

void bench(benchmark::State &st, ciot_step_kind kind, int L, bool hot, const char *version, int threads) {
    const ciot_token_ops *v = ciot_token_ops_find(version);
    if (!v || (v->features & ciot_cpu_features()) != v->features) {
        st.SkipWithError("this CPU cannot run the version");
        return;
    }
    ciot_pool *pool = g_pool.get(threads);
    if (!pool || !g_pool.probe) {
        st.SkipWithError("no pool or probe buffer");
        return;
    }
    Instances &in = instances_of(kind, L, hot);
    // the replay's ruler of this kind, over what one round of the calls moves (measure.h: within 4 x LLC and
    // the probe buffer)
    const ciot_bw_kind ruler = ciot_step_ruler(kind, v->copy_streams);
    size_t round = 0;
    for (size_t b = 0; b < in.count(); b++) round += in.bytes(b);
    auto sample = [&](double *gbs) { *gbs = ruler_sample(ruler, round); };
    static int order = 0;
    double probe_gbs = 0, probe_first = 0;
    if ((order++ & 1) == 0) sample(&probe_first);
    size_t i = 0, moved = 0;
    double ns = 0;
    for (auto _ : st) {
        size_t b = i++ % in.count();
        uint64_t t0 = ciot_now_ns();
        for (int ph = 0; ph < in.phases(b); ph++) {
            Phase p = {v, ciot_token_kind_of(kind), in.args(b), ph};
            ciot_pool_run(pool, run_phase, &p);
        }
        uint64_t dt = ciot_now_ns() - t0;
        ns += (double)dt;
        moved += in.bytes(b);
        st.SetIterationTime((double)dt * 1e-9);
    }
    if (probe_first == 0) sample(&probe_gbs);
    else probe_gbs = probe_first;
    double gbs = ns > 0 ? (double)moved / ns : 0;
    report(st, gbs, probe_gbs, in.traffic(0), fma_families(v->name), std::string("ruler ") + ciot_bw_kind_name(ruler));
}

// A runtime's own op (a peer module, --peer) at the shape and instance count of ciot's: the same bytes a call
// moves (ciot's traffic model of the op at that shape), the same ruler, every call on the next instance.
void bench_peer(benchmark::State &st, ciot_step_kind kind, int L, ciot_peer *m, int threads) {
    Instances &in = instances_of(kind, L, false);
    ciot_peer_op_shape s{};
    // as many bytes to rotate over as ciot's op: the runtime's delta rule writes its new state beside the old
    // one, so each of its instances is two states
    s.instances = int(kind == CIOT_STEP_DELTANET ? std::max<size_t>(2, in.count() / 2) : in.count());
    if (kind == CIOT_STEP_DELTANET)
        s.op = CIOT_PEER_OP_DELTANET, s.k_heads = in.dn[0].k_heads, s.v_heads = in.dn[0].v_heads, s.head_dim = in.dn[0].head_dim;
    else if (kind == CIOT_STEP_ATTENTION)
        s.op = CIOT_PEER_OP_ATTENTION, s.q_heads = in.at[0].q_heads, s.kv_heads = in.at[0].kv_heads,
        s.head_dim = in.at[0].head_dim, s.L = L;
    else
        s.op = CIOT_PEER_OP_STATE_COPY, s.bytes = in.sc[0].bytes;
    const ciot_peer_api *a = ciot_peer_api_of(m);
    char why[512] = "";
    // the runtime runs unpinned, as on its own: its threads would inherit a pinned caller's one core
    void *binding = nullptr;
    ciot_binding_release(&binding);
    if (g_peer_key != std::make_tuple(m, (int)kind, L, threads)) {
        g_peer_op.reset();
        g_peer_op = {a->op_new(&s, threads, why, sizeof why), a->op_free};
        g_peer_key = {m, (int)kind, L, threads};
    }
    ciot_peer_op *held = g_peer_op.get();
    ciot_binding_restore(binding);
    if (!held) {
        st.SkipWithError((std::string("the runtime does not run it: ") + why).c_str());
        return;
    }
    if (!g_pool.get(threads, CIOT_POOL_SPAWN) || !g_pool.probe) {
        st.SkipWithError("no pool or probe buffer");
        return;
    }
    const ciot_bw_kind ruler = ciot_step_ruler(kind, 0);
    const size_t round = in.bytes(0) * in.count();
    double probe_gbs = ruler_sample(ruler, round), ns = 0;
    size_t i = 0, moved = 0;
    for (auto _ : st) {
        ciot_binding_release(&binding);   // outside the timed span
        const uint64_t t0 = ciot_now_ns();
        const int failed = a->op_run(held, int(i++ % size_t(s.instances)), why, sizeof why);
        const uint64_t dt = ciot_now_ns() - t0;
        ciot_binding_restore(binding);
        if (failed) {
            st.SkipWithError(why);
            return;
        }
        ns += double(dt);
        moved += in.bytes(0);
        st.SetIterationTime(double(dt) * 1e-9);
    }
    probe_gbs = std::max(probe_gbs, ruler_sample(ruler, round));   // the faster of the samples either side
    const double gbs = ns > 0 ? double(moved) / ns : 0;
    report(st, gbs, probe_gbs, in.traffic(0), fma_families(nullptr),
           std::string("runtime ") + a->build + ", ruler " + ciot_bw_kind_name(ruler));
}

// --peer MODULE[,MODULE]: taken out of argv before Google Benchmark reads it; false after one line.
bool take_peers(int &argc, char **argv, std::vector<ciot_peer *> &out) {
    int w = 1;
    for (int i = 1; i < argc; i++) {
        const char *list = nullptr;
        if (!std::strncmp(argv[i], "--peer=", 7)) list = argv[i] + 7;
        else if (!std::strcmp(argv[i], "--peer") && i + 1 < argc) list = argv[++i];
        if (!list) {
            argv[w++] = argv[i];
            continue;
        }
        for (const char *p = list; *p;) {
            const size_t len = std::strcspn(p, ",");
            char why[4352];
            ciot_peer *m;
            if (ciot_peer_open(std::string(p, len).c_str(), &m, why, sizeof why) != CIOT_OK) {
                std::fprintf(stderr, "bench_token_ops: --peer %s\n", why);
                return false;
            }
            out.push_back(m);
            p += len + (p[len] == ',');
        }
    }
    argc = w;
    return true;
}

}  // namespace

int main(int argc, char **argv) {
    std::vector<ciot_peer *> peers;
    if (!take_peers(argc, argv, peers)) return 2;
    struct Kind {
        const char *name;
        ciot_step_kind kind;
        int L;
        bool hot;
    } kinds[] = {{"deltanet", CIOT_STEP_DELTANET, 0, false},
                 {"deltanet-hot", CIOT_STEP_DELTANET, 0, true},
                 {"attention-hot/L=255", CIOT_STEP_ATTENTION, 255, true},
                 {"attention-hot/L=1023", CIOT_STEP_ATTENTION, 1023, true},
                 {"attention/L=4096", CIOT_STEP_ATTENTION, 4096, false},
                 {"attention/L=32768", CIOT_STEP_ATTENTION, 32768, false},
                 {"state_copy", CIOT_STEP_STATE_COPY, 0, false}};
    auto common = [](benchmark::internal::Benchmark *b) {
        b->UseManualTime()
            ->Unit(benchmark::kMillisecond)
            ->MinTime(0.5)
            ->ComputeStatistics("min", [](const std::vector<double> &x) { return *std::min_element(x.begin(), x.end()); })
            ->ComputeStatistics("max", [](const std::vector<double> &x) { return *std::max_element(x.begin(), x.end()); });
    };
    for (const Kind &k : kinds) {
        for (int vi = 0; vi < ciot_token_ops_count(); vi++)
            for (int threads = 1; threads <= 2; threads++) {
                const ciot_token_ops *v = ciot_token_ops_at(vi);
                std::string name = std::string(k.name) + "/" + v->name + "/threads:" + std::to_string(threads);
                common(benchmark::RegisterBenchmark(name.c_str(), bench, k.kind, k.L, k.hot, v->name, threads));
            }
        // a runtime's rows right after ciot's of the op (its instances are made once for both), cold ones only
        for (ciot_peer *m : k.hot ? std::vector<ciot_peer *>{} : peers)
            for (int threads = 1; threads <= 2; threads++) {
                std::string name = std::string(k.name) + "/peer:" + ciot_peer_name(m) + "/threads:" + std::to_string(threads);
                common(benchmark::RegisterBenchmark(name.c_str(), bench_peer, k.kind, k.L, m, threads));
            }
    }
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    if (g_pool.pool) ciot_pool_destroy(g_pool.pool);
    return 0;
}
