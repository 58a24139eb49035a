// `ciot bench` options: the ciot flags into Options, the Google Benchmark flags checked and collected.
#include <cstring>

#include "bench_state.h"

extern "C" {
#include "bench_flags.h"
#include "cli.h"
#include "place_opts.h"
#include "topo.h"
}

namespace ciot_bench {

namespace {

// A CIOT_OPT_LIST value (no item is empty) into its comma-separated items.
void split_list(const char *list, std::vector<std::string> &out) {
    for (const char *p = list; p && *p;) {
        const size_t len = strcspn(p, ",");
        out.emplace_back(p, len);
        p += len + (p[len] == ',');
    }
}

}  // namespace

// Options; returns -1 when the run should go on, else the exit code. GB flags are collected in passthrough.
int parse_args(int argc, char **argv, Options &o, std::vector<std::string> &passthrough) {
    const char *kernels = nullptr, *peers = nullptr, *json = nullptr, *gguf = nullptr, *tensors = nullptr;
    int refs = 1, no_spawn = 0, no_pin = 0, prefetch_off = 0, pages_small = 0, rep_ms = 100, shape_given = 0;
    ciot_int_list batches{}, threads{};
    ciot_place_args place{};
    const ciot_opt opts[] = {
        {"--shape", CIOT_OPT_SHAPE, &o.gemv, 1, 1 << 28, nullptr, "RxK", "gemv matrix (default 32768x8192)", &shape_given},
        {"--gemm-shape", CIOT_OPT_SHAPE, &o.gemm, 1, 1 << 28, nullptr, "RxK", "gemm matrix (default 17408x5120)", &shape_given},
        {"--batches", CIOT_OPT_INT_LIST, &batches, 1, 4096, nullptr, "LIST", "gemm activation rows (default 4,64)", nullptr},
        {"--threads", CIOT_OPT_INT_LIST, &threads, 1, 1024, nullptr, "LIST", "thread counts, e.g. 1,2 or 1-4 (default 1 .. cores)", nullptr},
        {"--kernels", CIOT_OPT_LIST, &kernels, 0, 0, nullptr, "LIST",
         "kernels whose name contains one of these comma-separated words (default: every\navailable one)", nullptr},
        {"--kernel", CIOT_OPT_LIST, &kernels, 0, 0, nullptr, "LIST", "the same as --kernels", nullptr},
        {"--peer", CIOT_OPT_LIST, &peers, 0, 0, nullptr, "LIST",
         "a runtime's own types beside the kernels: MODULE (its ternary types) or MODULE:TYPE,\n"
         "comma-separated; MODULE is a NAME made by scripts/peer-build or a path (ciot peers)", nullptr},
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
        CIOT_PLACE_OPTS(&place),
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
    split_list(kernels, o.kernels);
    split_list(peers, o.peers);
    if (peers && gguf) return ciot_opts_fail(&c, "--peer does not apply to --gguf: the runtime's types are drawn bytes at --shape and --gemm-shape");
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
    ciot_int_list counts = threads;
    for (int t = 1; !threads.n && t <= ciot_topo_cores() && t <= CIOT_INT_LIST_MAX; t++) counts.v[counts.n++] = t;
    if ((rc = ciot_place_apply("bench", &place, no_pin, counts.v, counts.n)) >= 0) return rc;
    const size_t cold = ciot_cold_bytes();
    char b1[32];
    if (o.ceiling_bytes && o.ceiling_bytes < cold)
        return ciot_opts_fail(&c, "--ceiling-size must be at least max(4 x LLC, 1G) = %s: a smaller probe buffer "
                                  "would measure the cache", ciot_format_bytes(cold, b1, sizeof b1));
    return -1;
}

}  // namespace ciot_bench
