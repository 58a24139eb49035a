// bench_token_ops: GB/s of the token ops that move the most (deltanet, attention at a context length,
// state_copy) per version and thread count, each repetition paired with one sample of the replay's ruler of
// that kind on the same pool (profiles/replay_ruler.c: read for attention, update for DeltaNet's in-place
// states, the copy of the version's stores for the state copy), over the calls' working set and with the
// prefetch policy (harness/measure/method.md; which of the two goes first alternates). Every call starts
// cold: the calls rotate over as many blocks' states or caches (and DeltaNet's conv taps and gate
// parameters) as fill max(4 x LLC, the op's own size x 2); only the input activations, which the token's
// matvec before the op has just written, are shared and warm.
// Counters: GB/s (ciot_<kind>_bytes over the time), ceiling GB/s (the paired sample of the ruler), pct
// (their ratio).
// attention-hot/L=255 and L=1023 are the exception: one instance (1 or 4 MiB of cache, one or four chunks per
// KV head) called again and again, so it runs from cache and its GB/s is the loop's compute rate, the bound
// the DRAM runs can approach; L=1023 spreads the call's fixed costs (append, combine, two barriers) over four
// times the positions. deltanet-hot likewise calls one block (3 MiB of states) again and again: the state
// pass's rate from L2 and L3, the bound its DRAM run can approach.
// usage: bench_token_ops [--benchmark_filter=REGEX] [--benchmark_repetitions=N] ...
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
#include "pool.h"
#include "prefetch.h"
#include "probe_bw.h"
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
    ciot_pool *get(int n) {
        if (pool && threads == n) return pool;
        if (pool) ciot_pool_destroy(pool), ciot_bw_buffer_free(probe, probe_bytes), probe = nullptr;
        ciot_pool_opts o = {n, 1, 0, 0};
        if (ciot_pool_create(CIOT_POOL_PERSISTENT, &o, &pool) != CIOT_OK) return pool = nullptr;
        threads = n;
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
    // the kind's bytes moved and phases, from its descriptor
    size_t bytes(size_t i) const {
        ciot_op_traffic t;
        ciot_token_kind_of(kind)->traffic(args(i), &t);
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
    // one op's instances alive at a time, kept across its versions, thread counts and repetitions
    static std::unique_ptr<Instances> held;
    static std::tuple<int, int, bool> held_key{-1, -1, false};
    if (held_key != std::make_tuple((int)kind, L, hot)) {
        held.reset(new Instances);
        held_key = {(int)kind, L, hot};
        if (kind == CIOT_STEP_DELTANET) make_deltanet(*held, hot);
        else if (kind == CIOT_STEP_ATTENTION) make_attention(*held, L, hot);
        else make_state_copy(*held);
    }
    Instances &in = *held;
    // the replay's ruler of this kind, over what one round of the calls moves (measure.h: within 4 x LLC and
    // the probe buffer)
    const ciot_bw_kind ruler = ciot_step_ruler(kind, v->copy_streams);
    size_t round = 0;
    for (size_t b = 0; b < in.count(); b++) round += in.bytes(b);
    ciot_ruler r{};
    r.bytes = g_pool.probe_bytes;
    const size_t span = ciot_ruler_span(&r, ruler, round);
    auto sample = [&](double *gbs) {
        int passes = 0;
        ciot_bw_sample_kind(pool, ruler, g_pool.probe, span, 0.2, CIOT_PREFETCH_DEFAULT, gbs, &passes);
    };
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
    st.counters["GB/s"] = gbs;
    st.counters["ceiling_GB/s"] = probe_gbs;
    st.counters["pct"] = probe_gbs > 0 ? 100.0 * gbs / probe_gbs : 0;
    st.counters["MB/call"] = (double)in.bytes(0) / 1e6;
    st.SetLabel(std::string("ruler ") + ciot_bw_kind_name(ruler));
}

}  // namespace

int main(int argc, char **argv) {
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
    for (const Kind &k : kinds)
        for (int vi = 0; vi < ciot_token_ops_count(); vi++)
            for (int threads = 1; threads <= 2; threads++) {
                const ciot_token_ops *v = ciot_token_ops_at(vi);
                std::string name = std::string(k.name) + "/" + v->name + "/threads:" + std::to_string(threads);
                benchmark::RegisterBenchmark(name.c_str(), bench, k.kind, k.L, k.hot, v->name, threads)
                    ->UseManualTime()
                    ->Unit(benchmark::kMillisecond)
                    ->MinTime(0.5)
                    ->ComputeStatistics("min", [](const std::vector<double> &x) { return *std::min_element(x.begin(), x.end()); })
                    ->ComputeStatistics("max", [](const std::vector<double> &x) { return *std::max_element(x.begin(), x.end()); });
            }
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    if (g_pool.pool) ciot_pool_destroy(g_pool.pool);
    return 0;
}
