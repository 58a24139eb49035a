/* The whole token: Bonsai's op list holds every op of a decoded token where it sits in the block, its
 * memory at a context is what the shapes give (method.md, "The rest of a token"), and a replay of a small
 * hybrid list runs every op on the pool: the matvecs in order, the DeltaNet states updated in place and
 * copied, the KV bytes growing with the context, the steps' times inside the token's. Ends with
 * "N passed, M failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "model.h"
#include "pool.h"
#include "registry.h"
#include "cpu.h"
#include "replay.h"
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
    ciot_replay_record_free(&rec);
    ciot_replay_destroy(r);
    ciot_token_exec_destroy(e);
    ciot_pool_destroy(pool);
    ciot_model_free(&m);
}

int main(void) {
    test_bonsai_token();
    test_parse();
    test_small_replay();
    printf("%d passed, %d failed\n", check_passed, check_failed);
    return check_failed != 0;
}
