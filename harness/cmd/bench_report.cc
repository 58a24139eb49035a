// What `ciot bench` reports: per case the median (min - max) of the per-repetition figures, the paired
// probe samples, the per-repetition read ratio and ratio to the row's roof (roof.h), with flags where a
// ruler broke (a ratio above 100%) or the weights fit in the cache; and the JSON document with every
// repetition (results/SCHEMA.md).
#include <algorithm>
#include <cstring>

#include "bench_run.h"

extern "C" {
#include "bigbuf.h"
#include "cli.h"
#include "json.h"
#include "choice.h"
#include "cpu.h"
#include "registry.h"
}

namespace ciot_bench {

#define CHOSEN_TEXT "the kernel ciot chooses for this source file, op, batch and thread count (ciot info): measured here by ciot tune, or the static rank"

// Whether c's kernel is the one chosen for its file, op, shape, batch and threads (choice.h).
static bool is_chosen(const Case &c) {
    if (c.peer) return false;   // a runtime's own type is never ciot's choice
    const ciot_choice_ask a = {c.k->layout->source, nullptr, c.k->op, c.batch, c.threads, c.rows, c.K, ciot_cpu_features()};
    return ciot_kernel_choose(&a).kernel == c.k;
}

static ciot_spread spread_of(const std::vector<double> &v) { return ciot_spread_of(v.data(), int(v.size())); }

Summary summarize(const Case &c) {
    std::vector<double> gw, gbs, probe, ratio, compute, bw_roof, roof;
    Summary s{};
    for (const Rep &r : c.reps) {
        gw.push_back(r.gweights), gbs.push_back(r.kernel_gbs), probe.push_back(r.probe_gbs), ratio.push_back(r.ratio);
        bw_roof.push_back(r.roof.bw_gmacs);
        if (r.compute_gmacs > 0) compute.push_back(r.compute_gmacs);
        if (r.roof.kind != CIOT_ROOF_NONE) roof.push_back(r.roof.ratio);
        s.ratio_above_1 |= r.ratio > 1;
        s.above_compute_roof |= r.roof.kind == CIOT_ROOF_COMPUTE && r.roof.ratio > 1;
    }
    s.gw = s.gmacs = spread_of(gw), s.gbs = spread_of(gbs), s.probe = spread_of(probe), s.ratio = spread_of(ratio);
    s.compute = spread_of(compute), s.bw_roof = spread_of(bw_roof), s.roof_ratio = spread_of(roof);
    // The row's roof: the lower one at the medians, by the same rule as each repetition's (roof.c).
    s.bound = c.k->op != CIOT_OP_GEMM ? CIOT_ROOF_BW
              : !c.has_family         ? CIOT_ROOF_NONE
              : s.compute.median < s.bw_roof.median ? CIOT_ROOF_COMPUTE
                                                     : CIOT_ROOF_BW;
    for (const Rep &r : c.reps) s.bound_mixed |= r.roof.kind != s.bound, s.low_outlier |= rep_low_outlier(r, s);
    return s;
}

bool rep_low_outlier(const Rep &r, const Summary &s) {
    return ciot_low_outlier(r.probe_gbs, s.probe.median) ||
           (r.compute_gmacs > 0 && ciot_low_outlier(r.compute_gmacs, s.compute.median));
}

void print_summary(FILE *f, const Options &o, const std::vector<Case> &cases, const ciot_ruler &ruler,
                   const ciot_weight_region &region) {
    char b1[32], b2[32];
    const bool cache = ciot_cache_resident(region.bytes);
    fprintf(f, "\n# ciot bench: median (min - max) over %d repetitions; each repetition paired with a read-probe "
               "sample on the same pool (gemm rows with a multiply family: and a compute-probe sample)\n",
            o.reps);
    fprintf(f, "# weights %s (%s, %.0f%% huge pages)%s, probe buffer %s (%.0f%% huge pages; " CIOT_BW_PLANS_TEXT
               "), prefetch %s\n",
            ciot_format_bytes(region.bytes, b1, sizeof b1), o.huge ? "huge pages requested" : "small pages",
            100 * (region.huge_fraction < 0 ? 0 : region.huge_fraction), cache ? " [" CIOT_CACHE_FLAG "]" : "",
            ciot_format_bytes(ruler.bytes, b2, sizeof b2), 100 * (ruler.huge_fraction < 0 ? 0 : ruler.huge_fraction),
            o.prefetch ? "on (" CIOT_PREFETCH_TEXT ", kernels and probe)" : "off");
    int w = 4;
    for (const Case &c : cases) w = std::max(w, int(c.name.size()));
    fprintf(f, "%-*s %-24s %8s %-23s %7s %-29s %-8s %-18s %s\n", w, "case", "Gweights/s", "GB/s", "probe GB/s", "MAC/B",
            "compute GMAC/s", "roof", "% of roof", "flags");
    bool read_flag = false, compute_flag = false, mixed = false, outlier = false;
    for (const Case &c : cases) {
        if (c.reps.empty()) continue;
        const Summary s = summarize(c);
        char gw[64], pr[64], comp[64] = "-", roof[16] = "-", ra[64] = "-";
        snprintf(gw, sizeof gw, "%.1f (%.1f - %.1f)", s.gw.median, s.gw.min, s.gw.max);
        snprintf(pr, sizeof pr, "%.2f (%.2f - %.2f)", s.probe.median, s.probe.min, s.probe.max);
        if (c.has_family)
            snprintf(comp, sizeof comp, "%.1f (%.1f - %.1f) %s", s.compute.median, s.compute.min, s.compute.max,
                     ciot_compute_family_name(c.family));
        else if (c.k->op == CIOT_OP_GEMM)
            snprintf(comp, sizeof comp, "none (%s)", c.no_family);
        if (s.bound != CIOT_ROOF_NONE) {
            snprintf(roof, sizeof roof, "%s%s", ciot_roof_kind_name(s.bound), s.bound_mixed ? "*" : "");
            snprintf(ra, sizeof ra, "%.0f%% (%.0f - %.0f%%)", 100 * s.roof_ratio.median, 100 * s.roof_ratio.min,
                     100 * s.roof_ratio.max);
        }
        std::string flags = s.ratio_above_1 ? "RATIO>100%" : "";
        if (s.above_compute_roof) flags += flags.empty() ? "COMPUTE>100%" : " COMPUTE>100%";
        if (cache) flags += flags.empty() ? "CACHE" : " CACHE";
        if (s.low_outlier) flags += flags.empty() ? "OUTLIER" : " OUTLIER";
        if (is_chosen(c)) flags += flags.empty() ? "CHOSEN" : " CHOSEN";
        read_flag |= s.ratio_above_1, compute_flag |= s.above_compute_roof, mixed |= s.bound_mixed;
        outlier |= s.low_outlier;
        fprintf(f, "%-*s %-24s %8.2f %-23s %7.1f %-29s %-8s %-18s %s\n", w, c.name.c_str(), gw, s.gbs.median, pr,
                c.intensity, comp, roof, ra, flags.c_str());
    }
    fprintf(f, "GB/s counts packed weight bytes (scales included); gemm rows are GMAC/s = rows x K x batch / s; "
               "MAC/B = rows x K x batch / weight bytes.\n"
               "roof: a gemv row's is the paired read ceiling (%% = kernel GB/s / probe GB/s); a gemm row's the lower "
               "of bw = probe GB/s x MAC/B and compute = the paired compute sample of the kernel's family (%% = "
               "GMAC/s over it), per repetition. Lookup kernels (ciot kernels: mac=lookup) do no multiplies and scalar references have no "
               "vector family: their gemm rows have no compute roof and no %%.\n");
    if (mixed) fprintf(f, "*: the repetitions differ in which roof bounds them (near the ridge; the JSON has each).\n");
    if (read_flag) fprintf(f, "RATIO>100%%: %s; the ratio is a finding, not a result.\n", CIOT_RATIO_FLAG);
    if (compute_flag) fprintf(f, "COMPUTE>100%%: %s; a finding, not a result.\n", CIOT_COMPUTE_FLAG);
    if (cache) fprintf(f, "CACHE: %s.\n", CIOT_CACHE_FLAG);
    if (outlier) fprintf(f, "OUTLIER: %s; that repetition's ratio is a finding, not a result.\n", CIOT_OUTLIER_FLAG);
    fprintf(f, "CHOSEN: %s.\n", CHOSEN_TEXT);
}

// Rates and ratios keep every digit (%.17g): a slow reference under an emulator or a small ratio keeps its
// significant figures.
static void spread(ciot_json *j, const char *key, const ciot_spread &s) {
    ciot_json_key(j, key);
    ciot_json_begin_object(j);
    ciot_json_kv_number(j, "min", s.min);
    ciot_json_kv_number(j, "median", s.median);
    ciot_json_kv_number(j, "max", s.max);
    ciot_json_end_object(j);
}

static void nullable_string(ciot_json *j, const char *v) {
    if (v) ciot_json_string(j, v);
    else ciot_json_null(j);
}

static void nullable_number(ciot_json *j, const char *key, bool present, double v) {
    ciot_json_key(j, key);
    if (present) ciot_json_number(j, v);
    else ciot_json_null(j);
}

static void nullable_spread(ciot_json *j, const char *key, bool present, const ciot_spread &s) {
    if (present) spread(j, key, s);
    else ciot_json_key(j, key), ciot_json_null(j);
}

static void buffer(ciot_json *j, const char *key, size_t bytes, bool huge, double huge_fraction) {
    ciot_json_key(j, key);
    ciot_json_begin_object(j);
    ciot_json_kv_int(j, "bytes", (long long)bytes);
    ciot_json_kv_bool(j, "cache_resident", ciot_cache_resident(bytes));
    ciot_json_kv_bool(j, "huge_pages_requested", huge);
    ciot_json_key(j, "huge_page_fraction");
    if (huge_fraction >= 0) ciot_json_fixed(j, huge_fraction, 3);
    else ciot_json_null(j);
    ciot_json_kv_string(j, "first_touch", "the persistent pool of the most threads, static page split");
    ciot_json_end_object(j);
}

static void protocol(ciot_json *j, const Options &o, const ciot_ruler &ruler, const ciot_weight_region &region) {
    ciot_json_key(j, "protocol");
    ciot_json_begin_object(j);
    ciot_json_kv_int(j, "reps", o.reps);
    ciot_json_kv_number(j, "rep_seconds", o.rep_seconds);
    ciot_json_kv_number(j, "probe_seconds", o.probe_seconds);
    ciot_json_kv_string(j, "pairing", "each repetition: one read-probe sample and the kernel's calls on the same pool "
                                      "and thread count; the probe goes first on even repetitions");
    ciot_json_kv_string(j, "ratio", "kernel GB/s / probe GB/s of the same repetition");
    ciot_json_kv_number(j, "compute_seconds", o.compute_seconds);
    ciot_json_kv_string(j, "compute_pairing", "a gemm whose kernel multiplies with an int8 family: each repetition "
                                              "also takes one compute-probe sample of that family on the same pool "
                                              "and thread count, right after the read-probe sample: the faster of "
                                              "two jobs of compute_seconds, sized once per family, pool and thread "
                                              "count");
    ciot_json_kv_string(j, "intensity", "MACs per byte of weights read = rows x K x batch / matrix_bytes");
    ciot_json_kv_string(j, "roof", "gemv: the paired read ceiling (bound bw, ratio_to_bound = ratio); gemm: "
                                   "min(bw_roof_gmacs = probe_gbs x intensity, compute_gmacs), ratio_to_bound = "
                                   "gweights_s / bound_gmacs; a lookup or scalar gemm has no compute roof: bound "
                                   "null, no ratio_to_bound");
    ciot_json_kv_int(j, "cold_bytes_rule", (long long)ciot_cold_bytes());
    ciot_json_kv_string(j, "prefetch", o.prefetch ? "on" : "off");
    ciot_json_kv_int(j, "prefetch_bytes", (long long)o.prefetch);
    ciot_json_kv_string(j, "prefetch_hint", o.prefetch ? CIOT_PREFETCH_HINT : "none");
    ciot_json_kv_string(j, "probe_plans", CIOT_BW_PLANS_TEXT);
    ciot_json_kv_string(j, "pages", o.huge ? "huge" : "small");
    ciot_json_key(j, "weights_source");
    if (o.gguf.empty()) ciot_json_string(j, "drawn bytes (every code and scale legal; timing does not depend on values)");
    else ciot_json_string(j, ("the tensors of " + o.gguf + ", repacked at load, copied over the weight region").c_str());
    buffer(j, "weights", region.bytes, region.huge, region.huge_fraction);
    buffer(j, "probe", ruler.bytes, ruler.huge, ruler.huge_fraction);
    ciot_json_key(j, "flags");
    ciot_json_begin_object(j);
    ciot_json_kv_string(j, "ratio_above_1", CIOT_RATIO_FLAG);
    ciot_json_kv_string(j, "above_compute_roof", CIOT_COMPUTE_FLAG);
    ciot_json_kv_string(j, "cache_resident", CIOT_CACHE_FLAG);
    ciot_json_kv_string(j, "low_outlier", CIOT_OUTLIER_FLAG);
    ciot_json_kv_string(j, "chosen", CHOSEN_TEXT);
    ciot_json_end_object(j);
    ciot_json_end_object(j);
}

static void one_case(ciot_json *j, const Case &c, bool cache) {
    const Summary s = summarize(c);
    ciot_json_begin_object(j);
    ciot_json_kv_string(j, "name", c.name.c_str());
    ciot_json_kv_string(j, "kernel", c.k->name);
    ciot_json_kv_string(j, "layout", c.k->layout->name);
    ciot_json_kv_string(j, "source", c.peer ? peer_source(c) : ciot_format_name(c.k->layout->source));
    ciot_json_kv_string(j, "engine", c.peer ? "peer" : "ciot");
    if (c.peer) peer_json(j, c);
    ciot_json_kv_string(j, "op", c.k->op == CIOT_OP_GEMM ? "gemm" : "gemv");
    ciot_json_key(j, "tensor");   /* --gguf: the file's tensor the weights are; null: drawn bytes */
    if (c.tensor.empty()) ciot_json_null(j);
    else ciot_json_string(j, c.tensor.c_str());
    ciot_json_kv_int(j, "rows", c.rows);
    ciot_json_kv_int(j, "K", c.K);
    ciot_json_kv_int(j, "batch", c.batch);
    ciot_json_kv_int(j, "threads", c.threads);
    ciot_json_kv_bool(j, "chosen", is_chosen(c));
    ciot_json_key(j, "pus");   // the PU each thread ran on after its binding; null where unknown (not pinned)
    ciot_json_begin_array(j);
    for (int pu : c.pus) pu >= 0 ? ciot_json_int(j, pu) : ciot_json_null(j);
    ciot_json_end_array(j);
    ciot_json_kv_string(j, "pool", pool_name(c.kind));
    ciot_json_kv_string(j, "pinning", c.pinning.c_str());
    ciot_json_kv_string(j, "priority", c.priority.c_str());
    ciot_json_kv_number(j, "bits_per_weight", ciot_layout_bits_per_weight(c.k->layout));
    ciot_json_kv_int(j, "matrix_bytes", (long long)c.ring->bytes);
    ciot_json_kv_int(j, "copies", c.ring->copies);
    ciot_json_kv_int(j, "calls_per_rep", c.iterations);
    ciot_json_kv_bool(j, "cache_resident", cache);
    ciot_json_kv_number(j, "intensity", c.intensity);
    ciot_json_key(j, "compute_family");
    nullable_string(j, c.has_family ? ciot_compute_family_name(c.family) : nullptr);
    ciot_json_key(j, "compute_instruction");
    nullable_string(j, c.has_family ? ciot_compute_instruction(c.family) : nullptr);
    ciot_json_key(j, "no_compute_roof");   /* why a gemm has none; null for a gemv (the read ceiling) or a family */
    nullable_string(j, c.k->op == CIOT_OP_GEMM && !c.has_family ? c.no_family : nullptr);
    ciot_json_key(j, "repetitions");
    ciot_json_begin_array(j);
    for (const Rep &r : c.reps) {
        const bool bound = r.roof.kind != CIOT_ROOF_NONE;
        ciot_json_begin_object(j);
        ciot_json_kv_number(j, "seconds", r.seconds);
        ciot_json_kv_number(j, "gweights_s", r.gweights);
        ciot_json_kv_number(j, "kernel_gbs", r.kernel_gbs);
        ciot_json_kv_number(j, "probe_gbs", r.probe_gbs);
        ciot_json_kv_number(j, "ratio", r.ratio);
        ciot_json_kv_bool(j, "probe_first", r.probe_first);
        ciot_json_kv_bool(j, "ratio_above_1", r.ratio > 1);
        nullable_number(j, "compute_gmacs", c.has_family, r.compute_gmacs);
        ciot_json_kv_number(j, "bw_roof_gmacs", r.roof.bw_gmacs);
        ciot_json_key(j, "bound");
        nullable_string(j, bound ? ciot_roof_kind_name(r.roof.kind) : nullptr);
        nullable_number(j, "bound_gmacs", bound, r.roof.bound_gmacs);
        nullable_number(j, "ratio_to_bound", bound, r.roof.ratio);
        ciot_json_kv_bool(j, "above_compute_roof", r.roof.kind == CIOT_ROOF_COMPUTE && r.roof.ratio > 1);
        ciot_json_kv_bool(j, "low_outlier", rep_low_outlier(r, s));
        ciot_json_end_object(j);
    }
    ciot_json_end_array(j);
    ciot_json_key(j, "summary");
    ciot_json_begin_object(j);
    spread(j, "gweights_s", s.gw);
    spread(j, "kernel_gbs", s.gbs);
    if (c.k->op == CIOT_OP_GEMM) spread(j, "gmacs_s", s.gmacs);
    spread(j, "probe_gbs", s.probe);
    spread(j, "ratio", s.ratio);
    ciot_json_kv_bool(j, "ratio_above_1", s.ratio_above_1);
    nullable_spread(j, "compute_gmacs", c.has_family, s.compute);
    spread(j, "bw_roof_gmacs", s.bw_roof);
    ciot_json_key(j, "bound");
    nullable_string(j, s.bound != CIOT_ROOF_NONE ? ciot_roof_kind_name(s.bound) : nullptr);
    ciot_json_kv_bool(j, "bound_mixed", s.bound_mixed);
    nullable_spread(j, "ratio_to_bound", s.bound != CIOT_ROOF_NONE, s.roof_ratio);
    ciot_json_kv_bool(j, "above_compute_roof", s.above_compute_roof);
    ciot_json_kv_bool(j, "low_outlier", s.low_outlier);
    ciot_json_key(j, "flags");
    ciot_json_begin_array(j);
    if (s.ratio_above_1) ciot_json_string(j, "ratio_above_1");
    if (s.above_compute_roof) ciot_json_string(j, "above_compute_roof");
    if (cache) ciot_json_string(j, "cache_resident");
    if (s.low_outlier) ciot_json_string(j, "low_outlier");
    ciot_json_end_array(j);
    ciot_json_end_object(j);
    ciot_json_end_object(j);
}

void write_json(ciot_json *j, const Options &o, const std::vector<Case> &cases,
                       const std::vector<Overhead> &overheads, ciot_context *ctx, const ciot_ruler &ruler,
                       const ciot_weight_region &region) {
    const bool cache = ciot_cache_resident(region.bytes);
    ciot_json_begin_object(j);
    ciot_json_kv_string(j, "bench", "ciot");
    ciot_json_kv_int(j, "schema", 3);
    ciot_json_kv_string(j, "units", "Gweights/s = rows x K x batch / s / 1e9 (gemm: = GMAC/s); GB/s = packed weight "
                                    "bytes (scales included) / s / 1e9; ratio = kernel GB/s / paired probe GB/s; "
                                    "intensity = MACs per byte of weights; *_gmacs = 1e9 MACs / s; ratio_to_bound = "
                                    "gweights_s / bound_gmacs");
    ciot_json_key(j, "context");
    ciot_json_begin_object(j);
    ciot_context_write(j, ctx);
    std::vector<const ciot_kernel *> ks;
    for (const Case &c : cases)
        if (!c.peer && std::find(ks.begin(), ks.end(), c.k) == ks.end()) ks.push_back(c.k);
    ciot_context_write_kernel_flags(j, ks.data(), int(ks.size()));
    ciot_json_end_object(j);
    protocol(j, o, ruler, region);
    ciot_json_key(j, "cases");
    ciot_json_begin_array(j);
    for (const Case &c : cases)
        if (!c.reps.empty()) one_case(j, c, cache);
    ciot_json_end_array(j);
    ciot_json_key(j, "pool_empty_job");
    ciot_json_begin_array(j);
    for (const Overhead &ov : overheads) {
        if (ov.us.empty()) continue;
        ciot_json_begin_object(j);
        ciot_json_kv_int(j, "threads", ov.threads);
        ciot_json_kv_string(j, "pool", pool_name(ov.kind));
        spread(j, "us_per_call", spread_of(ov.us));
        ciot_json_end_object(j);
    }
    ciot_json_end_array(j);
    ciot_json_end_object(j);
}

}  // namespace ciot_bench
