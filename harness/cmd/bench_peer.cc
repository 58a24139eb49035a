// Peer rows of `ciot bench`: a runtime's own types (peer modules, peers/peer_abi.h) timed by the same protocol
// as ciot's kernels. A peer row's stand-in descriptor gives the rings its row bytes, so its weights rotate
// through the same cold region; the runtime's mul_mat runs on its own threads, and its paired probe samples
// on ciot's spawn pool, which leaves no idle ciot thread spinning beside the runtime's.
#include <cstring>
#include <deque>
#include <memory>

#include "bench_state.h"

extern "C" {
#include "pin.h"
}

namespace ciot_bench {

struct PeerRow {
    ciot_peer *module;
    int type;
    std::string name;                   // NAME:TYPE
};

namespace {

struct Peers {
    std::vector<std::unique_ptr<ciot_peer, void (*)(ciot_peer *)>> modules;
    std::deque<PeerRow> rows;
    std::deque<ciot_layout> layouts;    // per row and K: one block is one whole row
    std::deque<ciot_kernel> kernels;
    std::map<std::pair<int, int>, std::vector<float>> acts;
    std::vector<std::pair<const ciot_peer_api *, ciot_peer_mm *>> plans;   // freed before their modules close
    ~Peers() {
        for (auto &p : plans) p.first->mm_free(p.second);
    }
};
std::unique_ptr<Peers> peers;

// The stand-in descriptor of a row at row length K: its name, op and the bytes its rows take.
const ciot_kernel *stand_in(const PeerRow &r, ciot_op op, int K) {
    const ciot_peer_api *a = ciot_peer_api_of(r.module);
    ciot_layout l{};
    l.name = r.name.c_str();
    l.tile_rows = 1, l.block_k = K, l.k_multiple = K;
    l.block_bytes = a->row_bytes(r.type, K);
    peers->layouts.push_back(l);
    ciot_kernel k{};
    k.name = r.name.c_str(), k.layout = &peers->layouts.back(), k.op = op;
    k.reference = nullptr;              // checked by ciot check --peer, not by the oracle
    peers->kernels.push_back(k);
    return &peers->kernels.back();
}

// The rows one --peer item asks for: MODULE (its ternary types) or MODULE:TYPE. -1 when fine, else the exit code.
int add_rows(const std::string &item) {
    const size_t colon = item.find(':');
    const std::string where = item.substr(0, colon), type = colon == std::string::npos ? "" : item.substr(colon + 1);
    char why[4352];
    ciot_peer *m;
    if (ciot_peer_open(where.c_str(), &m, why, sizeof why) != CIOT_OK) {
        ciot_say("bench", "--peer %s", why);
        return 2;
    }
    peers->modules.emplace_back(m, ciot_peer_close);
    const ciot_peer_api *a = ciot_peer_api_of(m);
    const int want = type.empty() ? -1 : ciot_peer_type_find(m, type.c_str());
    if (!type.empty() && want < 0) {
        char list[1024];
        ciot_say("bench", "--peer %s: %s has no type '%s' (its types: %s)", item.c_str(), ciot_peer_name(m), type.c_str(),
                 ciot_peer_type_list(m, list, sizeof list));
        return 2;
    }
    int added = 0;
    for (int t = 0; t < a->n_types; t++) {
        if (want >= 0 ? t != want : !a->types[t].ternary) continue;
        peers->rows.push_back(PeerRow{m, t, std::string(ciot_peer_name(m)) + ":" + a->types[t].name});
        added++;
    }
    if (!added) {
        ciot_say("bench", "--peer %s: %s offers no ternary type (ciot peers %s lists its types; name one as %s:TYPE)",
                 item.c_str(), ciot_peer_name(m), where.c_str(), where.c_str());
        return 2;
    }
    return -1;
}

// The runtime's answer for one case's shape: a refusal is one line before any long work.
int try_shape(const PeerRow &r, int rows, int K, int batch, int threads) {
    const ciot_peer_api *a = ciot_peer_api_of(r.module);
    char why[512] = "";
    ciot_peer_mm *mm = a->row_bytes(r.type, K) ? a->mm_new(r.type, rows, K, batch, threads, why, sizeof why) : nullptr;
    if (!a->row_bytes(r.type, K)) snprintf(why, sizeof why, "K %d is not a multiple of its block", K);
    if (!mm) {
        ciot_say("bench", "%s refuses %dx%d at batch %d: %s", r.name.c_str(), rows, K, batch, *why ? why : "no reason given");
        return 2;
    }
    a->mm_free(mm);
    return -1;
}

}  // namespace

// Rows of every --peer item, per op, shape, batch and thread count, filtered like the kernels; -1 when fine.
int make_peer_cases(const ciot_os_regex *filter) {
    const Options &o = g->opt;
    if (o.peers.empty()) return -1;
    peers.reset(new Peers);
    for (auto &item : o.peers) {
        const int rc = add_rows(item);
        if (rc >= 0) return rc;
    }
    for (const PeerRow &r : peers->rows)
        for (int gemm = 0; gemm < 2; gemm++) {
            const ciot_shape s = gemm ? o.gemm : o.gemv;
            const std::vector<int> batches = gemm ? std::vector<int>(o.batches.v, o.batches.v + o.batches.n) : std::vector<int>{1};
            const ciot_kernel *k = stand_in(r, gemm ? CIOT_OP_GEMM : CIOT_OP_GEMV, s.K);
            for (int b : batches)
                for (int ti = 0; ti < o.threads.n; ti++) {
                    Case c{};
                    c.k = k, c.peer = &r, c.rows = s.rows, c.K = s.K, c.batch = b, c.threads = o.threads.v[ti];
                    c.kind = CIOT_POOL_PERSISTENT;   // the runtime's own threads, alive across calls
                    c.name = r.name + "/" + std::to_string(s.rows) + "x" + std::to_string(s.K) +
                             (gemm ? "/batch:" + std::to_string(b) : "") + "/threads:" + std::to_string(c.threads) +
                             "/runtime";
                    if (filter && !ciot_os_regex_search(filter, c.name.c_str())) continue;
                    const int rc = try_shape(r, c.rows, c.K, c.batch, c.threads);
                    if (rc >= 0) return rc;
                    g->cases.push_back(c);
                }
        }
    return -1;
}

// fp32 activations of batch rows of K (the runtime quantizes them itself, inside its mul_mat).
const float *peer_acts_for(int batch, int K) {
    auto &v = peers->acts[std::make_pair(batch, K)];
    if (v.empty()) {
        v.resize(size_t(batch) * K);
        for (size_t j = 0; j < v.size(); j++) v[j] = float(int((j * 2654435761u) % 2001) - 1000) * 1e-3f;
    }
    return v.data();
}

// The runtime runs unpinned, as it would on its own: the calling thread, pinned by ciot's pool, is released
// for the call (the runtime's worker threads, started from it, would otherwise inherit its one core).
struct Unpinned {
    void *saved = nullptr;
    Unpinned() { ciot_binding_release(&saved); }
    ~Unpinned() { ciot_binding_restore(saved); }
};

// The case's runtime product, prepared once; false after one line when it cannot be.
bool peer_prepare(Case &c) {
    Unpinned free_to_run;
    const ciot_peer_api *a = ciot_peer_api_of(c.peer->module);
    char why[512] = "";
    c.x = peer_acts_for(c.batch, c.K);
    if (!c.plan && (c.plan = a->mm_new(c.peer->type, c.rows, c.K, c.batch, c.threads, why, sizeof why)))
        peers->plans.emplace_back(a, c.plan);
    if (!c.plan) fprintf(stderr, "ciot bench: %s: the runtime cannot prepare it: %s\n", c.name.c_str(), why);
    return c.plan != nullptr;
}

double peer_call(Case &c) {
    Unpinned free_to_run;   // outside the timed span
    char why[512];
    const void *w = ciot_weight_ring_next(&g->region, c.ring);
    const uint64_t t0 = ciot_now_ns();
    const int failed = ciot_peer_api_of(c.peer->module)->mm_run(c.plan, w, static_cast<const float *>(c.x), c.y.data(),
                                                               why, sizeof why);
    const double dt = double(ciot_now_ns() - t0) * 1e-9;
    if (failed) fprintf(stderr, "ciot bench: %s: %s\n", c.name.c_str(), why);
    return dt;
}

const char *peer_source(const Case &c) {
    ciot_format f;
    if (ciot_peer_type_format(c.peer->module, c.peer->type, &f)) return ciot_format_name(f);
    return ciot_peer_api_of(c.peer->module)->types[c.peer->type].name;
}

void peer_json(ciot_json *j, const Case &c) {
    const ciot_peer_api *a = ciot_peer_api_of(c.peer->module);
    const ciot_peer_type &t = a->types[c.peer->type];
    ciot_json_key(j, "peer");
    ciot_json_begin_object(j);
    ciot_json_kv_string(j, "module", ciot_peer_name(c.peer->module));
    ciot_json_kv_string(j, "type", t.name);
    ciot_json_kv_string(j, "engine", a->engine);
    ciot_json_kv_string(j, "build", a->build);
    ciot_json_kv_string(j, "activations", t.act);
    ciot_json_kv_bool(j, "ternary", t.ternary != 0);
    ciot_json_end_object(j);
}

void release_peers() { peers.reset(); }

}  // namespace ciot_bench
