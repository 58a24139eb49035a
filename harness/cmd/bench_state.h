// The state one `ciot bench` run shares between its steps (bench_*.cc): the options, the cases, the one
// live pool, the weight region and its rings, the activations; and the steps each file provides.
#ifndef CIOT_BENCH_STATE_H
#define CIOT_BENCH_STATE_H

#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "bench_run.h"

extern "C" {
#include "gguf.h"
#include "progress.h"
}

namespace ciot_bench {

void release_peers();   // bench_peer.cc

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
        release_peers();
        if (gguf) ciot_gguf_close(gguf);
        if (pool) ciot_pool_destroy(pool);
        ciot_weight_region_free(&region);
        ciot_ruler_free(&ruler);
    }
};
extern Run *g;   // the run in progress, owned by its entry point (bench.cc)

// bench_state.cc: the run's resources, made once and reused by the cases.
ciot_pool *acquire_pool(ciot_pool_kind kind, int threads);
// The pool a case's probes run on: its own, or for a runtime's row the spawn pool (no idle ciot threads).
inline ciot_pool_kind probe_pool(const Case &c) { return c.peer ? CIOT_POOL_SPAWN : c.kind; }
const ciot_weight_ring *ring_for(const ciot_layout *l, int rows, int K);
const void *acts_for(const ciot_act_format *a, int batch, int K);
void ensure_filled(Case &c, ciot_pool *p);
int max_threads();

// bench_args.cc: options; returns -1 when the run should go on, else the exit code. GB flags are collected
// in passthrough.
int parse_args(int argc, char **argv, Options &o, std::vector<std::string> &passthrough);

// bench_cases.cc: cases from the registry, filtered, and the memory they need; -1 when fine, else the exit
// code (message printed).
int make_cases(const std::string &filter);
int settle_memory();

// bench_peer.cc: rows of the runtimes' own types (--peer), their prepared products and their timed calls.
int make_peer_cases(const ciot_os_regex *filter);
bool peer_prepare(Case &c);
double peer_call(Case &c);
const char *peer_module_name(const Case &c);
const ciot_peer_api *peer_api(const Case &c);
int peer_type(const Case &c);

// bench_prepare.cc: the warm-up that sizes every case, and the run's length.
int prepare();
double estimate_seconds(double read_gbs, int max_threads);
void announce_estimate();

// bench_runner.cc: one timed call, and every case registered with Google Benchmark.
double call(Case &c, ciot_pool *p);
void register_benchmarks(bool have_unit);

}  // namespace ciot_bench

#endif
