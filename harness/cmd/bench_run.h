// The state of one `ciot bench` run, shared by the runner (bench*.cc, bench_state.h) and its report (bench_report.cc).
#ifndef CIOT_BENCH_RUN_H
#define CIOT_BENCH_RUN_H

#include <cstdio>
#include <string>
#include <vector>

extern "C" {
#include "context.h"
#include "json.h"
#include "kernel.h"
#include "measure.h"
#include "opts.h"
#include "peer.h"
#include "pool.h"
#include "prefetch.h"
#include "roof.h"
#include "weights.h"
}

namespace ciot_bench {

struct Options {
    ciot_shape gemv{32768, 8192}, gemm{17408, 5120};
    ciot_int_list batches{}, threads{};
    std::vector<std::string> kernels;   // substrings; empty = every available kernel
    int refs = 1;                       // 0 none, 1 gemv references only, 2 all
    bool spawn = true, pin = true, huge = true;
    size_t prefetch = CIOT_PREFETCH_DEFAULT;
    size_t working_set = 0;             // weight region; 0 = ciot_cold_bytes()
    size_t ceiling_bytes = 0;           // probe buffer; 0 = ciot_cold_bytes()
    int reps = 5;
    double rep_seconds = 0.1;           // a kernel repetition lasts at least this long
    double probe_seconds = CIOT_PROBE_SECONDS;  // a probe sample lasts at least this long (whole passes)
    double compute_seconds = 0.02;      // a compute sample: the faster of two jobs of about this long
    std::string json;
    std::string gguf, tensors;          // --gguf FILE: real tensors (matching --tensors REGEX) instead of drawn bytes
    std::vector<std::string> peers;     // --peer MODULE[:TYPE]: a runtime's own types beside the kernels
};

struct PeerRow;                         // bench_peer.cc: a runtime's type run through its peer module

// One repetition: the kernel's timed calls, the probe samples paired with them (read; compute for a gemm
// with a multiply family) and the roof they give (roof.h).
struct Rep {
    double seconds, gweights, kernel_gbs, probe_gbs, ratio;
    bool probe_first;
    double compute_gmacs;               // 0: no compute roof
    ciot_roof roof;
};

struct Case {
    const ciot_kernel *k;
    int rows, K, batch, threads;
    ciot_pool_kind kind;
    std::string name;
    long iterations = 1;                // calls per repetition, sized in the warm-up
    double warmup_seconds = 0;          // the timed warm-up call
    const ciot_weight_ring *ring = nullptr;
    std::string tensor;                 // --gguf: the tensor whose bytes the weights are; empty: drawn bytes
    const std::vector<unsigned char> *packed = nullptr;   // --gguf: the tensor packed in the kernel's layout
    const void *x = nullptr;
    std::vector<float> y;
    std::string pinning, priority;
    std::vector<int> pus;               // the PU each thread ran on after its binding (-1 unknown)
    double intensity = 0;               // MACs per byte of weights (roof.h)
    bool has_family = false;            // a gemm whose roof includes a compute family
    ciot_compute_family family{};
    const char *no_family = nullptr;    // why not (roof.h), when !has_family
    uint64_t compute_iters = 0;         // per thread per compute sample, sized in the warm-up
    std::vector<Rep> reps;
    const PeerRow *peer = nullptr;      // a runtime's type: k is its stand-in descriptor, x fp32 activations
    ciot_peer_mm *plan = nullptr;          // the runtime's prepared product for this shape, batch and threads
};

// The cost of one pooled call with no work (per pool kind and thread count), microseconds per repetition.
struct Overhead {
    int threads;
    ciot_pool_kind kind;
    std::string name;
    std::vector<double> us;
};

struct Summary {
    ciot_spread gw, gbs, gmacs, probe, ratio;
    bool ratio_above_1;
    ciot_spread compute, bw_roof, roof_ratio;   // roof_ratio: over the repetitions that have a bound
    ciot_roof_kind bound;               // the lower roof at the medians (none: no compute roof for a gemm)
    bool bound_mixed;                   // repetitions disagree on which roof bounds them (near the ridge)
    bool above_compute_roof;            // some compute-bound repetition above its compute sample: flagged
    bool low_outlier;                   // some repetition's probe sample below half the case's median: flagged
};
Summary summarize(const Case &c);
// Whether r's read sample, or its compute sample, is below half the case's median of its kind (stats.h).
bool rep_low_outlier(const Rep &r, const Summary &s);

// A runtime row's file format when its bytes are one ciot reads ("pq2_0", "tq1_0"), else its type's name.
const char *peer_source(const Case &c);
// The "peer" object of a runtime row: module, type, the build it came from, its activation type.
void peer_json(ciot_json *j, const Case &c);

inline const char *pool_name(ciot_pool_kind k) { return k == CIOT_POOL_PERSISTENT ? "persistent" : "spawn"; }

// The table of every case (median (min - max) Gweights/s, GB/s, paired probe, ratio, flags) on f.
void print_summary(FILE *f, const Options &o, const std::vector<Case> &cases, const ciot_ruler &ruler,
                   const ciot_weight_region &region);
// The JSON document: context, protocol, every case with every repetition's pair (the caller commits it).
void write_json(ciot_json *j, const Options &o, const std::vector<Case> &cases,
                       const std::vector<Overhead> &overheads, ciot_context *ctx, const ciot_ruler &ruler,
                       const ciot_weight_region &region);

}  // namespace ciot_bench

#endif
