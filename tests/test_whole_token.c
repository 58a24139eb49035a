/* The whole token: Bonsai's op list holds every op of a decoded token where it sits in the block, its
 * memory at a context is what the shapes give (method.md, "The rest of a token"), and a replay of a small
 * hybrid list runs every op on the pool: the matvecs in order, the DeltaNet states updated in place and
 * copied, the KV bytes growing with the context, the steps' times inside the token's; each op kind is
 * paired with the probe of its traffic (read, update for DeltaNet, the copy of its stores for the state
 * copies), each kind's share against its own ruler's samples. Ends with "N passed, M failed". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "commands.h"
#include "model.h"
#include "pool.h"
#include "registry.h"
#include "cpu.h"
#include "replay.h"
#include "replay_report.h"
#include "replay_stats.h"
#include "token_exec.h"

static const char SMALL[] = CIOT_SOURCE_DIR "/tests/data/replay/hybrid-small.ops";

static int count_kind(const ciot_model *m, ciot_step_kind k) {
    int n = 0;
    for (int i = 0; i < m->n_token; i++) n += m->token[i].kind == k;
    return n;
}

static int index_of(const ciot_model *m, const char *name) {
    for (int i = 0; i < m->n_token; i++)
        if (!strcmp(m->token[i].name, name)) return i;
    return -1;
}

static void test_bonsai_token(void) {
    ciot_model m;
    char err[CIOT_MODEL_ERR_MAX];
    CHECK(ciot_model_load("bonsai-2-27b", &m, err, sizeof err) == CIOT_OK, "bonsai loads: %s", err);
    CHECK(m.n_ops == 401 && m.n_token == 933, "bonsai: 401 matvecs in a token of 933 ops (%d, %d)", m.n_ops, m.n_token);
    /* per block two norms of the hidden state, the gated norm of 48 DeltaNet blocks, q and k norms of 16 */
    CHECK(count_kind(&m, CIOT_STEP_RMSNORM) == 64 * 2 + 48 + 32 + 1, "rmsnorms %d", count_kind(&m, CIOT_STEP_RMSNORM));
    CHECK(count_kind(&m, CIOT_STEP_DELTANET) == 48 && count_kind(&m, CIOT_STEP_ATTENTION) == 16 &&
              count_kind(&m, CIOT_STEP_ROPE) == 16 && count_kind(&m, CIOT_STEP_GLU) == 48 + 64 &&
              count_kind(&m, CIOT_STEP_ADD) == 128 && count_kind(&m, CIOT_STEP_EMBED) == 1 &&
              count_kind(&m, CIOT_STEP_ARGMAX) == 1 && count_kind(&m, CIOT_STEP_STATE_COPY) == 1,
          "bonsai's op kinds: deltanet %d attention %d rope %d glu %d add %d", count_kind(&m, CIOT_STEP_DELTANET),
          count_kind(&m, CIOT_STEP_ATTENTION), count_kind(&m, CIOT_STEP_ROPE), count_kind(&m, CIOT_STEP_GLU),
          count_kind(&m, CIOT_STEP_ADD));
    int next = 0, in_order = 1;
    for (int i = 0; i < m.n_token; i++)
        if (m.token[i].kind == CIOT_STEP_MATVEC)
            in_order &= m.token[i].op == next && !strcmp(m.token[i].name, m.ops[next].name), next++;
    CHECK(in_order && next == 401, "every matvec once, in the op list's order (%d)", next);
    CHECK(m.token[0].kind == CIOT_STEP_EMBED && m.token[m.n_token - 1].kind == CIOT_STEP_STATE_COPY &&
              index_of(&m, "output_norm") < index_of(&m, "output") && index_of(&m, "output") < index_of(&m, "argmax"),
          "the embedding first; the final norm, the LM head and its argmax last, then the state copy");
    CHECK(index_of(&m, "blk.0.attn_norm") < index_of(&m, "blk.0.attn_qkv") &&
              index_of(&m, "blk.0.attn_gate") < index_of(&m, "blk.0.deltanet") &&
              index_of(&m, "blk.0.deltanet") < index_of(&m, "blk.0.ssm_norm") &&
              index_of(&m, "blk.0.ssm_gate") < index_of(&m, "blk.0.ssm_out") &&
              index_of(&m, "blk.0.ssm_out") < index_of(&m, "blk.0.attn_residual") &&
              index_of(&m, "blk.0.ffn_up") < index_of(&m, "blk.0.ffn_glu") &&
              index_of(&m, "blk.0.ffn_glu") < index_of(&m, "blk.0.ffn_down"),
          "a DeltaNet block: norm, qkv and gate, the delta rule, gated norm, ssm_out, residual, the FFN");
    CHECK(index_of(&m, "blk.3.attn_v") < index_of(&m, "blk.3.attn_q_norm") &&
              index_of(&m, "blk.3.attn_k_norm") < index_of(&m, "blk.3.rope") &&
              index_of(&m, "blk.3.rope") < index_of(&m, "blk.3.attention") &&
              index_of(&m, "blk.3.attention") < index_of(&m, "blk.3.attn_output"),
          "an attention block: q, k, v, their norms, rope, attention, the output projection");
    const ciot_token_step *dn = &m.token[index_of(&m, "blk.0.deltanet")], *at = &m.token[index_of(&m, "blk.3.attention")];
    CHECK(dn->p[0] == 16 && dn->p[1] == 48 && dn->p[2] == 128 && dn->p[3] == 4 &&
              (2 * dn->p[0] + dn->p[1]) * dn->p[2] == m.ops[0].rows,
          "DeltaNet: 16 key heads, 48 value heads of 128, conv 4; attn_qkv's rows = q + k + v channels");
    CHECK(at->p[0] == 24 && at->p[1] == 4 && at->p[2] == 256, "attention: 24 query heads, 4 KV heads of 256");
    /* method.md: 4 KiB of KV per position per block, 16 blocks; 3 MiB of state per block plus its conv */
    ciot_token_memory mem;
    CHECK(ciot_token_memory_of(&m, 32768, &mem, err, sizeof err) == CIOT_OK, "memory at 32768: %s", err);
    CHECK(mem.kv == (size_t)16 * 32769 * 4096, "KV at 32768: %zu, expected 16 x 32769 x 4 KiB", mem.kv);
    const size_t state = 48 * ((size_t)48 * 128 * 128 * 4 + (size_t)3 * 10240 * 4);
    CHECK(mem.state == state && mem.snapshot == state, "states %zu and their copy %zu, expected %zu", mem.state,
          mem.snapshot, state);
    CHECK(ciot_token_memory_of(&m, 4096, &mem, err, sizeof err) == CIOT_OK && mem.kv == (size_t)16 * 4097 * 4096,
          "KV at 4096: %zu", mem.kv);
    ciot_model_free(&m);
}

static void test_parse(void) {
    ciot_model m;
    char err[CIOT_MODEL_ERR_MAX];
    CHECK(ciot_model_parse("a 4 256\nb 4 256\n", "plain.ops", &m, err, sizeof err) == CIOT_OK && m.n_token == 0 &&
              strstr(m.token_note, "matvecs only"),
          "matvec lines alone: no whole token, and the note says why (%s)", m.token_note);
    ciot_model_free(&m);
    /* an op between two lines of one fuse group ends the run */
    CHECK(ciot_model_parse("a 4 256 fuse=g\nn glu n=16\nb 4 256 fuse=g\n", "cut.ops", &m, err, sizeof err) == CIOT_OK &&
              m.n_token == 3 && m.ops[0].fuse != m.ops[1].fuse && m.token[1].kind == CIOT_STEP_GLU && m.token[1].p[0] == 16,
          "an op inside a fuse run splits it: %s", err);
    ciot_model_free(&m);
    CHECK(ciot_model_parse("e embed rows=4 n=256 type=q8_0\na 4 256\n", "e.ops", &m, err, sizeof err) == CIOT_OK &&
              m.token[0].p[2] == CIOT_EMBED_Q8_0,
          "embed's type by the ops' names: %s", err);
    ciot_model_free(&m);
}

static void test_small_replay(void) {
    ciot_model m;
    char err[CIOT_MODEL_ERR_MAX];
    if (ciot_model_load(SMALL, &m, err, sizeof err) != CIOT_OK) {
        CHECK(0, "%s loads: %s", SMALL, err);
        return;
    }
    ciot_pool *pool;
    ciot_pool_opts po = {.threads = 2, .pin = 0};
    CHECK(ciot_pool_create(CIOT_POOL_PERSISTENT, &po, &pool) == CIOT_OK, "pool");
    ciot_token_exec *e;
    CHECK(ciot_token_exec_create(&m, 600, ciot_token_ops_best(), pool, &e, err, sizeof err) == CIOT_OK, "exec: %s", err);
    const ciot_kernel *k = ciot_kernel_find("pq2_0_gemv_ref");
    ciot_replay_opts o = {.model = &m, .n_ops = m.n_ops, .kernel = k, .batch = 1, .chunk = 4, .memory = CIOT_MEMORY_FULL,
                          .straggler = -1, .exec = e};
    ciot_replay *r;
    CHECK(ciot_replay_create(&o, 2, &r) == CIOT_OK, "replay of the whole token");
    const ciot_replay_step *steps;
    const int n = ciot_replay_steps(r, CIOT_DISPATCH_STATIC, &steps);
    const int nf = ciot_replay_steps(r, CIOT_DISPATCH_FUSED, NULL);
    CHECK(n == m.n_token && nf == m.n_token - 4 - 2, "static runs the %d steps of the list (%d), fused %d (gate+up "
          "and q+k+v fused)", m.n_token, n, nf);
    int names = 1;
    for (int s = 0; s < n; s++) names &= !strcmp(steps[s].name, m.token[s].name) && steps[s].tok == m.token[s].kind;
    CHECK(names, "each step where its line sits");
    size_t bytes;
    const unsigned char *state = ciot_token_exec_region(e, 0, &bytes);
    unsigned char *before = malloc(bytes);
    memcpy(before, state, bytes);
    size_t snap_bytes;
    const unsigned char *snap = ciot_token_exec_region(e, 1, &snap_bytes);
    CHECK(snap_bytes == 2 * bytes, "two copies of %zu state bytes: %zu", bytes, snap_bytes);
    ciot_replay_record rec;
    ciot_replay_record_alloc(&rec, n, 2);
    /* 600 positions: three chunks of the attention's 256, its scratch at its largest */
    static const int contexts[] = {16, 64, 600};
    for (int c = 0; c < 3; c++) {
        const int L = contexts[c];
        ciot_replay_set_context(r, L);
        ciot_replay_token(r, pool, CIOT_DISPATCH_STATIC, &rec);
        uint64_t sum = 0;
        int ran = 1;
        for (int s = 0; s < n; s++) {
            sum += rec.wall_ns[s];
            ran &= rec.wall_ns[s] > 0;
        }
        CHECK(ran && sum <= rec.token_ns, "L %d: every step timed, their sum %llu within the token's %llu ns", L,
              (unsigned long long)sum, (unsigned long long)rec.token_ns);
    }
    CHECK(memcmp(before, state, bytes) != 0, "the delta rule updated the states in place");
    CHECK(memcmp(snap, state, bytes) == 0 && memcmp(snap + bytes, state, bytes) == 0,
          "the state copies hold the states as the token left them");
    /* the KV bytes an attention reads grow by K and V of every added position: 1 head x 64 dims x fp16 */
    ciot_replay_step *at16, *at64;
    ciot_replay_steps_at(r, CIOT_DISPATCH_STATIC, 16, &at16);
    ciot_replay_steps_at(r, CIOT_DISPATCH_STATIC, 64, &at64);
    int ai = -1;
    for (int s = 0; s < n; s++)
        if (at16[s].tok == CIOT_STEP_ATTENTION) ai = s;
    CHECK(ai >= 0 && at64[ai].traffic.kv_read - at16[ai].traffic.kv_read == (size_t)48 * 2 * 64 * 2 &&
              at64[ai].bytes > at16[ai].bytes,
          "attention reads 48 positions x K and V x 64 x 2 bytes more at 64 than at 16 (%zu)",
          ai >= 0 ? at64[ai].traffic.kv_read - at16[ai].traffic.kv_read : 0);
    free(at16), free(at64), free(before);
    /* each step's ruler: DeltaNet's in-place states the update probe, the state copy the copy probe of its
     * version's stores, every other step the read probe */
    const int streams = ciot_token_ops_best()->copy_streams;
    int rulers = 1, deltanets = 0, copies = 0;
    for (int s = 0; s < n; s++) {
        const ciot_bw_kind want = steps[s].tok == CIOT_STEP_DELTANET     ? CIOT_BW_UPDATE
                                  : steps[s].tok == CIOT_STEP_STATE_COPY ? (streams ? CIOT_BW_COPY_NT : CIOT_BW_COPY)
                                                                         : CIOT_BW_READ;
        rulers &= steps[s].ruler == want;
        deltanets += steps[s].ruler == CIOT_BW_UPDATE, copies += steps[s].ruler == want && want != CIOT_BW_READ &&
                                                                 want != CIOT_BW_UPDATE;
    }
    CHECK(rulers && deltanets == 3 && copies == 1, "the steps' rulers: update for the 3 DeltaNets, %s for the copy, "
          "read for the rest (%d, %d, %d)", streams ? "copy_nt" : "copy", rulers, deltanets, copies);
    ciot_replay_record_free(&rec);
    ciot_replay_destroy(r);
    ciot_token_exec_destroy(e);
    ciot_pool_destroy(pool);
    ciot_model_free(&m);
}

/* The reference's state copy is libc's memcpy (plain stores as far as the ruler knows), AVX2's (the AVX-512 F
 * version's too) streams: each gets the copy probe of its own stores. */
static void test_copy_rulers(void) {
    CHECK(ciot_step_ruler(CIOT_STEP_STATE_COPY, 0) == CIOT_BW_COPY && ciot_step_ruler(CIOT_STEP_STATE_COPY, 1) == CIOT_BW_COPY_NT &&
              ciot_step_ruler(CIOT_STEP_DELTANET, 1) == CIOT_BW_UPDATE && ciot_step_ruler(CIOT_STEP_ATTENTION, 1) == CIOT_BW_READ &&
              ciot_step_ruler(CIOT_STEP_MATVEC, 0) == CIOT_BW_READ && ciot_step_ruler(CIOT_STEP_RMSNORM, 1) == CIOT_BW_READ,
          "rulers by kind: the state copy by its stores, DeltaNet update, the others read");
    CHECK(!ciot_token_ops_ref.copy_streams, "the reference's copy is memcpy: its ruler is the plain copy");
    for (int i = 0; i < ciot_token_ops_count(); i++) {
        const ciot_token_ops *v = ciot_token_ops_at(i);
        if (!strcmp(v->name, "avx2") || !strcmp(v->name, "avx512f"))
            CHECK(v->copy_streams, "%s's copy (AVX2's) stores non-temporally: its ruler is copy_nt", v->name);
        /* the ruler follows the copy a version runs: the reference's memcpy or a streaming one */
        const int own = ciot_kind_state_copy.run[v->id] != NULL && v->id != CIOT_OPV_REF;
        CHECK(v->copy_streams == own, "%s: copy_streams %d with %s copy", v->name, v->copy_streams,
              own ? "its own" : "the reference's");
    }
}

/* Each kind's share is against its own ruler's samples, token by token, and the run's bound is every step's
 * bytes at its ruler: three rulers with different samples per token, so any step paired with another
 * ruler's samples, or with the median instead of its token's sample, gives another figure. */
static void test_paired_stats(void) {
    enum { STEPS = 4, TOKENS = 3 };
    ciot_replay_step steps[STEPS] = {
        {.name = "mv", .kind = "attn_qkv", .tok = CIOT_STEP_MATVEC, .bytes = 4000000, .ruler = CIOT_BW_READ},
        {.name = "dn", .kind = "deltanet", .tok = CIOT_STEP_DELTANET, .bytes = 6000000, .ruler = CIOT_BW_UPDATE},
        {.name = "sc", .kind = "state_copy", .tok = CIOT_STEP_STATE_COPY, .bytes = 8000000, .ruler = CIOT_BW_COPY_NT},
        {.name = "dn2", .kind = "deltanet", .tok = CIOT_STEP_DELTANET, .bytes = 6000000, .ruler = CIOT_BW_UPDATE},
    };
    static const double read[TOKENS] = {10, 12, 11}, update[TOKENS] = {20, 14, 30}, copy_nt[TOKENS] = {16, 40, 25};
    ciot_replay_record recs[TOKENS];
    size_t total = 0;
    for (int s = 0; s < STEPS; s++) total += steps[s].bytes;
    for (int k = 0; k < TOKENS; k++) {
        ciot_replay_record_alloc(&recs[k], STEPS, 1);
        recs[k].token_ns = 0;
        for (int s = 0; s < STEPS; s++) {
            recs[k].wall_ns[s] = (uint64_t)(200000 + 50000 * s + 30000 * k * (s % 2 ? -1 : 1) + 100000);
            recs[k].token_ns += recs[k].wall_ns[s];
        }
        recs[k].token_ns += 1000;
    }
    ciot_paired_samples paired = {{0}, {0}};
    paired.gbs[CIOT_BW_READ] = read, paired.gbs[CIOT_BW_UPDATE] = update, paired.gbs[CIOT_BW_COPY_NT] = copy_nt;
    ciot_run_stats run;
    CHECK(ciot_run_stats_compute(CIOT_DISPATCH_STATIC, recs, TOKENS, steps, STEPS, 1, 1, total, &paired, &run) == CIOT_OK,
          "run stats");
    ciot_kind_stats *ks;
    const int n = ciot_kind_stats_compute(&run, &ks);
    CHECK(n == 3, "3 kinds (%d)", n);
    for (int i = 0; i < n; i++) {
        const ciot_bw_kind want = i == 0 ? CIOT_BW_READ : i == 1 ? CIOT_BW_UPDATE : CIOT_BW_COPY_NT;
        const double *own = paired.gbs[want];
        double pct[TOKENS], pct_read[TOKENS];
        for (int k = 0; k < TOKENS; k++) {
            uint64_t ns = 0;
            for (int s = 0; s < STEPS; s++) ns += !strcmp(steps[s].kind, ks[i].kind) ? recs[k].wall_ns[s] : 0;
            pct[k] = 100 * (double)ks[i].bytes / (double)ns / own[k];
            pct_read[k] = 100 * (double)ks[i].bytes / (double)ns / read[k];
        }
        const ciot_spread sp = ciot_spread_sort(pct, TOKENS);
        CHECK(ks[i].ruler == want, "%s is paired with %s (%s)", ks[i].kind, ciot_bw_kind_name(want),
              ciot_bw_kind_name(ks[i].ruler));
        CHECK(fabs(ks[i].pct_paired - sp.median) < 1e-9 && fabs(ks[i].pct_paired_min - sp.min) < 1e-9 &&
                  fabs(ks[i].pct_paired_max - sp.max) < 1e-9,
              "%s: %% of its own ruler token by token, %.6f (%.6f-%.6f), expected %.6f (%.6f-%.6f)", ks[i].kind,
              ks[i].pct_paired, ks[i].pct_paired_min, ks[i].pct_paired_max, sp.median, sp.min, sp.max);
        CHECK(fabs(ks[i].pct_read_paired - ciot_median(pct_read, TOKENS)) < 1e-9, "%s: %% of the read ruler %.6f",
              ks[i].kind, ks[i].pct_read_paired);
        CHECK(fabs(ks[i].pct_ceiling - 100 * ks[i].gbs / run.ruler_median[want]) < 1e-9,
              "%s: %% of its ruler's median", ks[i].kind);
    }
    ciot_kind_stats_free(ks, n);
    /* the token against the time its bytes take at its own samples: 4 MB read, 12 MB update, 8 MB copy_nt */
    int ratios = 1;
    for (int k = 0; k < TOKENS; k++) {
        const double bound = 4e6 / read[k] + 12e6 / update[k] + 8e6 / copy_nt[k];
        ratios &= fabs(run.ratio[k] - bound / (double)recs[k].token_ns) < 1e-12;
    }
    CHECK(ratios, "each token's ratio: its bytes at its own three samples over its time");
    const double bound_med = 4e6 / 11 + 12e6 / 20 + 8e6 / 25;
    CHECK(fabs(run.bound_tok_s - 1e9 / bound_med) < 1e-6 && fabs(run.bound_gbs - (double)total / bound_med) < 1e-9,
          "the bound: every byte at its ruler's median (%.3f tok/s, %.4f GB/s)", run.bound_tok_s, run.bound_gbs);
    ciot_run_stats_free(&run);
    /* a ruler not sampled: its kind falls back to the read probe, and says so */
    paired.gbs[CIOT_BW_UPDATE] = NULL;
    ciot_run_stats_compute(CIOT_DISPATCH_STATIC, recs, TOKENS, steps, STEPS, 1, 1, total, &paired, &run);
    const int m = ciot_kind_stats_compute(&run, &ks);
    CHECK(m == 3 && ks[1].ruler == CIOT_BW_READ && fabs(ks[1].pct_paired - ks[1].pct_read_paired) < 1e-12,
          "without update samples DeltaNet is paired with the read probe");
    /* %read's flag: a read-ruled kind above 100% breaks the read ruler; a kind that writes does not */
    ciot_kind_stats flag = {.ruler = CIOT_BW_READ, .pct_read_paired = 100.5};
    CHECK(ciot_kind_read_flagged(&flag), "a read kind at 100.5%% of the read is flagged");
    flag.pct_read_paired = 99.5;
    CHECK(!ciot_kind_read_flagged(&flag), "a read kind at 99.5%% of the read is not flagged");
    flag.ruler = CIOT_BW_UPDATE, flag.pct_read_paired = 119;
    CHECK(!ciot_kind_read_flagged(&flag), "an update-ruled kind at 119%% of the read is not flagged");
    flag.ruler = CIOT_BW_COPY_NT;
    CHECK(!ciot_kind_read_flagged(&flag), "a copy-ruled kind at 119%% of the read is not flagged");
    ciot_kind_stats_free(ks, m);
    ciot_run_stats_free(&run);
    for (int k = 0; k < TOKENS; k++) ciot_replay_record_free(&recs[k]);
}

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) b[0] = 0;
    if (b) b[n] = 0;
    fclose(f);
    return b;
}

/* ciot replay with stdout and stderr captured into out and err (malloc'd); returns the exit code. */
static int replay_cmd(char **out, char **err, int argc, const char **args) {
    char po[64], pe[64];
    snprintf(po, sizeof po, "/tmp/ciot-wt-%d.out", (int)getpid());
    snprintf(pe, sizeof pe, "/tmp/ciot-wt-%d.err", (int)getpid());
    fflush(stdout), fflush(stderr);
    const int so = dup(1), se = dup(2);
    FILE *fo = fopen(po, "w"), *fe = fopen(pe, "w");
    if (!fo || !fe || so < 0 || se < 0) return -100;
    dup2(fileno(fo), 1), dup2(fileno(fe), 2);
    char *argv[32] = {"replay"};
    for (int i = 0; i < argc && i < 30; i++) argv[i + 1] = (char *)args[i];
    const int rc = ciot_cmd_replay(argc + 1, argv);
    fflush(stdout), fflush(stderr);
    dup2(so, 1), dup2(se, 2);
    close(so), close(se);
    fclose(fo), fclose(fe);
    *out = slurp(po), *err = slurp(pe);
    remove(po), remove(pe);
    return rc;
}

/* The line of text that holds needle, copied into line ("" when none). */
static const char *line_with(const char *text, const char *needle, char *line, size_t len) {
    const char *at = text ? strstr(text, needle) : NULL;
    line[0] = 0;
    if (!at) return line;
    const char *start = at;
    while (start > text && start[-1] != '\n') start--;
    const char *end = strchr(at, '\n');
    const size_t n = end ? (size_t)(end - start) : strlen(start);
    snprintf(line, len, "%.*s", (int)(n < len ? n : len - 1), start);
    return line;
}

/* The command: a whole token samples every ruler its kinds need beside each token, names each kind's ruler in
 * the table and the JSON with its samples; the matvecs only take no write ruler's samples. */
static void test_command(void) {
    char json[64], line[1024];
    snprintf(json, sizeof json, "/tmp/ciot-wt-%d.json", (int)getpid());
    const char *copy = ciot_token_ops_best()->copy_streams ? "copy_nt" : "copy";
    const char *args[] = {"--model", SMALL, "--threads", "2", "--tokens", "2", "--ceiling-size", "8M", "--context",
                          "64", "--json", json};
    char *out, *err;
    int rc = replay_cmd(&out, &err, (int)(sizeof args / sizeof args[0]), args);
    CHECK(rc == 0, "whole-token replay exits 0 (%d): %s", rc, err ? err : "");
    char want[96];
    snprintf(want, sizeof want, " %s ", copy);
    /* every measured token's round has its samples of the three rulers, and only those */
    const char *t1 = line_with(err, "token 1/2:", line, sizeof line);
    CHECK(strstr(t1, " read ") && strstr(t1, " update ") && strstr(t1, want) &&
              (!strcmp(copy, "copy") || !strstr(t1, " copy ")),
          "token 1 is paired with read, update and %s samples: %s", copy, t1);
    /* in the order they ran: before the round (token 1) the read sample last, beside it; after it (token 2)
     * first; every sample a rate */
    double g_read = 0, g_update = 0, g_copy = 0;
    char first[16] = "", last[16] = "";
    for (int k = 1; k <= 2; k++) {
        char name[16], tok[16];
        snprintf(tok, sizeof tok, "token %d/2:", k);
        const char *at = strstr(line_with(err, tok, line, sizeof line), k == 1 ? "probe (before)" : "probe (after)");
        int used = 0, n = 0;
        double v;
        for (at = at ? at + strlen(k == 1 ? "probe (before)" : "probe (after)") : NULL;
             at && sscanf(at, " %15s %lf GB/s%n", name, &v, &used) == 2; at += used, n++) {
            if (!strcmp(name, "read")) g_read = v;
            else if (!strcmp(name, "update")) g_update = v;
            else if (!strcmp(name, copy)) g_copy = v;
            if (n == 0) snprintf(first, sizeof first, "%s", name);
            snprintf(last, sizeof last, "%s", name);
        }
        CHECK(n == 3 && !strcmp(k == 1 ? last : first, "read"), "token %d: three samples, the read one %s the round "
              "(%d samples, first %s, last %s)", k, k == 1 ? "last, before" : "first, after", n, first, last);
    }
    CHECK(g_read > 0 && g_update > 0 && g_copy > 0, "every ruler's sample is a rate (read %.2f, update %.2f, %s %.2f)",
          g_read, g_update, copy, g_copy);
    CHECK(strstr(line_with(out, "state_copy ", line, sizeof line), want) != NULL, "the table names %s for state_copy: %s",
          copy, line);
    CHECK(strstr(line_with(out, "deltanet ", line, sizeof line), " update ") != NULL,
          "the table names update for deltanet: %s", line);
    CHECK(strstr(line_with(out, "attention ", line, sizeof line), " read ") != NULL,
          "the table names read for attention: %s", line);
    CHECK(strstr(out ? out : "", "# ruler of DeltaNet's states") && strstr(out ? out : "", "# ruler of the state copies"),
          "the summary describes the write rulers");
    free(out), free(err);
    char *doc = slurp(json);
    char kind[160];
    snprintf(kind, sizeof kind, "\"kind\": \"state_copy\",");
    const char *sc = doc ? strstr(doc, kind) : NULL, *dn = doc ? strstr(doc, "\"kind\": \"deltanet\",") : NULL;
    char ruler[64];
    snprintf(ruler, sizeof ruler, "\"ruler\": \"%s\"", copy);
    CHECK(sc && strstr(sc, ruler) && strstr(sc, ruler) < strstr(sc, "\"pct_token\""), "JSON: state_copy's ruler is %s",
          copy);
    CHECK(dn && strstr(dn, "\"ruler\": \"update\"") && strstr(dn, "\"ruler\": \"update\"") < strstr(dn, "\"pct_token\""),
          "JSON: deltanet's ruler is update");
    const char *rulers = doc ? strstr(doc, "\"rulers\": [") : NULL;
    char entry[64];
    snprintf(entry, sizeof entry, "\"ruler\": \"%s\",", copy);
    CHECK(rulers && strstr(rulers, "\"ruler\": \"read\",") && strstr(rulers, "\"ruler\": \"update\",") &&
              strstr(rulers, entry) && strstr(rulers, "\"gbs_per_token\": ["),
          "JSON: the rulers' samples per token");
    free(doc);
    remove(json);

    const char *mv[] = {"--model", SMALL, "--threads", "1", "--tokens", "2", "--ceiling-size", "8M", "--matvecs-only",
                        "--json", json};
    rc = replay_cmd(&out, &err, (int)(sizeof mv / sizeof mv[0]), mv);
    CHECK(rc == 0, "matvecs-only replay exits 0 (%d)", rc);
    t1 = line_with(err, "token 1/2:", line, sizeof line);
    CHECK(strstr(t1, " read ") && !strstr(t1, " update ") && !strstr(t1, " copy"),
          "the matvecs only take read samples alone: %s", t1);
    CHECK(out && !strstr(out, "# ruler of"), "the matvecs only describe no write ruler");
    free(out), free(err);
    doc = slurp(json);
    rulers = doc ? strstr(doc, "\"rulers\": [") : NULL;
    CHECK(rulers && strstr(rulers, "\"ruler\": \"read\",") && !strstr(rulers, "\"ruler\": \"update\""),
          "JSON of the matvecs only: the read ruler alone");
    free(doc);
    remove(json);
}

int main(void) {
    test_bonsai_token();
    test_parse();
    test_small_replay();
    test_copy_rulers();
    test_paired_stats();
    test_command();
    printf("%d passed, %d failed\n", check_passed, check_failed);
    return check_failed != 0;
}
