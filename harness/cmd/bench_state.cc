// The resources of a `ciot bench` run, made once and shared by its cases: the one live pool, the rings of
// weight copies, the quantized activations, and the weight region's --gguf contents.
#include <algorithm>
#include <cstring>

#include "bench_state.h"

extern "C" {
#include "split.h"
}

namespace ciot_bench {

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

int max_threads() { return *std::max_element(g->opt.threads.v, g->opt.threads.v + g->opt.threads.n); }

}  // namespace ciot_bench
