// The case list of `ciot bench`: the selected kernels (or a GGUF file's tensors) per shape, batch, thread
// count and pool, the pool-overhead rows, and the memory they need.
#include <algorithm>
#include <cstring>


#include "bench_state.h"

extern "C" {
#include "bigbuf.h"
#include "cpu.h"
#include "os.h"
#include "registry.h"
}

namespace ciot_bench {

namespace {

bool is_ref(const ciot_kernel *k) { return k->reference == k; }

// A POSIX extended regular expression (what --benchmark_filter and --tensors take, os.h); NULL when it is none.
ciot_os_regex *compile(const std::string &text) {
    char err[256];
    return ciot_os_regex_compile(text.c_str(), err, sizeof err);
}

// The cases of kernel k on a rows x K matrix (a tensor's when tensor is not empty): gemv, or gemm per batch,
// per thread count and pool, those whose name the filter matches.
void add_cases(const ciot_kernel *k, int rows, int K, const std::string &tensor, const std::vector<unsigned char> *packed,
               const ciot_os_regex *re) {
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
                if (!re || ciot_os_regex_search(re, c.name.c_str())) g->cases.push_back(c);
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
        char nearest[512];
        ciot_kernel_suggest(w.c_str(), 1, nearest, sizeof nearest);
        ciot_say("bench", "--kernels '%s' is in no kernel's name (%s%s%sciot kernels lists them)", w.c_str(),
                 *nearest ? "nearest: " : "", nearest, *nearest ? "; " : "");
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
int make_gguf_cases(const ciot_os_regex *re) {
    const Options &o = g->opt;
    char why[512];
    ciot_status st = ciot_gguf_open(o.gguf.c_str(), &g->gguf, why, sizeof why);
    if (st != CIOT_OK) {
        ciot_say("bench", "%s: %s", o.gguf.c_str(), why);
        return st == CIOT_E_NOMEM ? 1 : 2;
    }
    ciot_os_regex *tre = o.tensors.empty() ? nullptr : compile(o.tensors);
    if (!o.tensors.empty() && !tre) {
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
        if (tre && !ciot_os_regex_search(tre, t->name)) continue;
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
    ciot_os_regex_free(tre);
    if (rc < 0 && !matrices) {
        ciot_say("bench", "%s has no 2-D ternary tensor%s%s", o.gguf.c_str(),
                 o.tensors.empty() ? "" : " matching ", o.tensors.c_str());
        rc = 2;
    }
    return rc;
}

}  // namespace

// Cases from the registry, filtered; returns -1 when fine, else the exit code (message printed).
int make_cases(const std::string &filter) {
    Options &o = g->opt;
    ciot_os_regex *re = filter.empty() ? nullptr : compile(filter);
    if (!filter.empty() && !re) {
        ciot_say("bench", "--benchmark_filter '%s' is not a regular expression", filter.c_str());
        return 2;
    }
    const ciot_os_regex *fre = re;
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
    if (rc < 0) rc = make_peer_cases(fre);
    for (int ti = 0; ti < o.threads.n && rc < 0; ti++)
        for (int pk = 0; pk < (o.spawn ? 2 : 1); pk++) {
            const ciot_pool_kind kind = pk ? CIOT_POOL_SPAWN : CIOT_POOL_PERSISTENT;
            Overhead ov{o.threads.v[ti], kind, "pool_empty_job/threads:" + std::to_string(o.threads.v[ti]) + "/" + pool_name(kind), {}};
            if (!fre || ciot_os_regex_search(fre, ov.name.c_str())) g->overheads.push_back(ov);
        }
    ciot_os_regex_free(re);
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

}  // namespace ciot_bench
