/* The token ops' oracle: every version of every kind (kernels/ops/token_ops.h) on drawn inputs, against the
 * reference run whole (one part), bit for bit, for 1, 2, 3 and 7 parts. Each case lives in one arena (inputs,
 * outputs filled with a sentinel, states updated in place, scratch); a run starts from a fresh copy of the
 * drawn arena, and every byte of it but the scratch must come out as the reference left it: outputs written,
 * inputs untouched. The parts of a phase run last part first, so a part that reads what another part of
 * the same phase writes shows. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "cpu.h"
#include "fp16.h"
#include "kernel.h"
#include "oracle_ops.h"
#include "prefetch.h"
#include "splitmix64.h"
#include "token_ops.h"

#define MAX_REGIONS 16
#define SENTINEL 0x7fc0deadu

typedef struct {
    const char *name;
    size_t off, bytes;
} region;


typedef struct {
    ciot_token_kind kind;
    char label[128];
    ciot_token_args args; /* pointers as offsets into the arena (bind adds the base) */
    region r[MAX_REGIONS];
    int nr;
    size_t bytes, scratch_off, scratch_bytes;
    unsigned char *drawn;
    uint64_t seed;
} ops_case;

/* ---- drawing ---- */

static float draw_uniform(uint64_t *s, float lo, float hi) {
    return lo + (hi - lo) * (float)((ciot_splitmix64(s) >> 40) * (1.0 / 16777216.0));
}

/* Value patterns: most cases draw uniform values; the others push the ops' edges. */
typedef enum { VAL_RANDOM, VAL_WIDE, VAL_ZERO, VAL_TINY, VAL_LARGE, VAL_COUNT } val_pattern;
static const char *const val_names[VAL_COUNT] = {"random", "wide", "zero", "tiny", "large"};
static void draw_values(float *x, size_t n, uint64_t *s, val_pattern p, float lo, float hi) {
    for (size_t i = 0; i < n; i++) {
        float v = draw_uniform(s, lo, hi);
        switch (p) {
        case VAL_RANDOM: break;
        case VAL_WIDE: v = v * 120.0f; break;    /* past the exp approximation's clamps */
        case VAL_ZERO: v = (i & 1) ? 0.0f : -0.0f; break;
        case VAL_TINY: v = v * 1e-20f; break;    /* squares in the subnormals */
        case VAL_LARGE: v = v * 3e18f; break;    /* squares near and past FLT_MAX */
        default: break;
        }
        x[i] = v;
    }
}

/* ---- arena layout ---- */

/* Reserves bytes (64-byte aligned, plus skew) named name; returns the offset. */
static size_t add_region(ops_case *c, const char *name, size_t bytes, size_t skew) {
    if (c->bytes == 0) c->bytes = 64; /* offset 0 would read as a NULL pointer */
    size_t off = ((c->bytes + 63) & ~(size_t)63) + skew;
    c->r[c->nr++] = (region){name, off, bytes};
    c->bytes = off + bytes;
    return off;
}
#define OFF(x) ((void *)(uintptr_t)(x))
static void *at(unsigned char *base, const void *off) { return base + (uintptr_t)off; }

static int alloc_case(ops_case *c) {
    c->bytes = (c->bytes + 63) & ~(size_t)63;
    c->drawn = aligned_alloc(64, c->bytes ? c->bytes : 64);
    if (!c->drawn) return 0;
    for (size_t i = 0; i + 4 <= c->bytes; i += 4) memcpy(c->drawn + i, &(uint32_t){SENTINEL}, 4);
    return 1;
}
static float *fl(ops_case *c, int region_index) { return (float *)(c->drawn + c->r[region_index].off); }
static void draw_region(ops_case *c, int ri, uint64_t *s, val_pattern p, float lo, float hi) {
    draw_values(fl(c, ri), c->r[ri].bytes / sizeof(float), s, p, lo, hi);
}

/* The args with the arena's base added to every pointer. */
#define REBASE(f) (b.f = b.f ? (void *)at(base, b.f) : NULL)
static ciot_token_args bind(const ops_case *c, unsigned char *base) {
    ciot_token_args u = c->args;
    switch (c->kind) {
    case CIOT_TOK_RMSNORM: {
        ciot_rmsnorm_args b = u.rmsnorm;
        REBASE(x), REBASE(w), REBASE(y);
        u.rmsnorm = b;
    } break;
    case CIOT_TOK_DELTANET: {
        ciot_deltanet_args b = u.deltanet;
        REBASE(qkv), REBASE(conv_state), REBASE(conv_w), REBASE(alpha), REBASE(beta_in), REBASE(a_log);
        REBASE(dt_bias), REBASE(state), REBASE(out), REBASE(scratch);
        u.deltanet = b;
    } break;
    case CIOT_TOK_ATTENTION: {
        ciot_attention_args b = u.attention;
        REBASE(q), REBASE(gate), REBASE(k), REBASE(v), REBASE(k_cache), REBASE(v_cache), REBASE(out), REBASE(scratch);
        u.attention = b;
    } break;
    case CIOT_TOK_ROPE: {
        ciot_rope_args b = u.rope;
        REBASE(q), REBASE(k), REBASE(table);
        u.rope = b;
    } break;
    case CIOT_TOK_GLU: {
        ciot_glu_args b = u.glu;
        REBASE(gate), REBASE(up), REBASE(y);
        u.glu = b;
    } break;
    case CIOT_TOK_STATE_COPY: {
        ciot_state_copy_args b = u.state_copy;
        REBASE(src), REBASE(dst);
        u.state_copy = b;
    } break;
    case CIOT_TOK_EMBED: {
        ciot_embed_args b = u.embed;
        REBASE(row), REBASE(out);
        u.embed = b;
    } break;
    case CIOT_TOK_ARGMAX: {
        ciot_argmax_args b = u.argmax;
        REBASE(x), REBASE(index), REBASE(value), REBASE(scratch);
        u.argmax = b;
    } break;
    default: break;
    }
    return u;
}

/* ---- running ---- */

#define RUN_KIND(kind)                                                                           \
    do {                                                                                         \
        for (int ph = 0; ph < ciot_##kind##_phases(&a->kind); ph++)                              \
            for (int p = parts - 1; p >= 0; p--) v->kind(&a->kind, ph, p, parts);                \
    } while (0)
static void run_version(const ciot_token_ops *v, ciot_token_kind kind, const ciot_token_args *a, int parts) {
    switch (kind) {
    case CIOT_TOK_RMSNORM: RUN_KIND(rmsnorm); break;
    case CIOT_TOK_DELTANET: RUN_KIND(deltanet); break;
    case CIOT_TOK_ATTENTION: RUN_KIND(attention); break;
    case CIOT_TOK_ROPE: RUN_KIND(rope); break;
    case CIOT_TOK_GLU: RUN_KIND(glu); break;
    case CIOT_TOK_STATE_COPY: RUN_KIND(state_copy); break;
    case CIOT_TOK_EMBED: RUN_KIND(embed); break;
    case CIOT_TOK_ARGMAX: RUN_KIND(argmax); break;
    default: break;
    }
}

/* Runs v on a fresh copy of the drawn arena into work. */
static int run_case(const ops_case *c, const ciot_token_ops *v, int parts, unsigned char *work, FILE *log) {
    memcpy(work, c->drawn, c->bytes);
    ciot_token_args a = bind(c, work);
    char why[256];
    if (ciot_token_check(c->kind, &a, why, sizeof why) != CIOT_OK) {
        fprintf(log, "FAIL %s_%s %s: the case's args are refused: %s\n", ciot_token_kind_name(c->kind), v->name,
                c->label, why);
        return 0;
    }
    run_version(v, c->kind, &a, parts);
    return 1;
}

/* Every byte outside the scratch as in want; reports the first few differences by region. */
static int compare(const ops_case *c, const unsigned char *want, const unsigned char *got, const char *name,
                   int parts, FILE *log) {
    int bad = 0;
    for (int i = 0; i < c->nr; i++) {
        const region *r = &c->r[i];
        if (r->off == c->scratch_off && c->scratch_bytes) continue;
        for (size_t j = 0; j < r->bytes; j++) {
            if (want[r->off + j] == got[r->off + j]) continue;
            if (bad++ < 3) {
                size_t e = j / 4;
                uint32_t w = 0, g = 0;
                if (r->off + 4 * e + 4 <= c->bytes) memcpy(&w, want + r->off + 4 * e, 4), memcpy(&g, got + r->off + 4 * e, 4);
                fprintf(log, "FAIL %s %s parts=%d: %s byte %zu (word %zu): expected 0x%08x (%.9g) got 0x%08x (%.9g)\n",
                        name, c->label, parts, r->name, j, e, w, ciot_bits_f32(w), g, ciot_bits_f32(g));
            }
            j = (j | 3);    /* one report per word */
        }
    }
    return bad == 0;
}

/* ---- the cases of each kind ---- */

static void case_rmsnorm(ops_case *c, int rows, int n, int stride, val_pattern p, uint64_t *s) {
    int st = stride ? stride : n;
    snprintf(c->label, sizeof c->label, "rows=%d n=%d stride=%d %s", rows, n, stride, val_names[p]);
    size_t xb = ((size_t)(rows - 1) * st + n) * sizeof(float);
    c->args.rmsnorm = (ciot_rmsnorm_args){
        .x = OFF(add_region(c, "x", xb, 0)), .w = OFF(add_region(c, "w", (size_t)n * 4, 0)),
        .y = OFF(add_region(c, "y", xb, 0)), .rows = rows, .n = n, .stride = stride, .eps = 1e-6f};
    if (!alloc_case(c)) return;
    draw_region(c, 0, s, p, -2.0f, 2.0f);
    draw_region(c, 1, s, VAL_RANDOM, 0.5f, 1.5f);
}

static void case_glu(ops_case *c, int n, ciot_glu_mode mode, val_pattern p, uint64_t *s) {
    snprintf(c->label, sizeof c->label, "n=%d %s %s", n, mode == CIOT_GLU_ADD ? "add" : "silu", val_names[p]);
    size_t b = (size_t)n * 4;
    c->args.glu = (ciot_glu_args){.gate = OFF(add_region(c, "gate", b, 0)), .up = OFF(add_region(c, "up", b, 0)),
                                  .y = OFF(add_region(c, "y", b, 0)), .n = n, .mode = mode};
    if (!alloc_case(c)) return;
    draw_region(c, 0, s, p, -8.0f, 8.0f);
    draw_region(c, 1, s, VAL_RANDOM, -2.0f, 2.0f);
    draw_region(c, 2, s, VAL_RANDOM, -2.0f, 2.0f); /* y: the residual of the add; overwritten by silu */
}

static void case_deltanet(ops_case *c, int kh, int vh, int D, int conv, val_pattern p, uint64_t *s) {
    snprintf(c->label, sizeof c->label, "k_heads=%d v_heads=%d head_dim=%d conv=%d %s", kh, vh, D, conv, val_names[p]);
    ciot_deltanet_args a = {.k_heads = kh, .v_heads = vh, .head_dim = D, .conv = conv, .eps = 1e-6f,
                            .prefetch = CIOT_PREFETCH_DEFAULT}; /* as the replay runs it */
    size_t ch = (size_t)(2 * kh + vh) * D, f = 4;
    a.qkv = OFF(add_region(c, "qkv", ch * f, 0));
    a.conv_state = OFF(add_region(c, "conv_state", (size_t)(conv - 1) * ch * f, 0));
    a.conv_w = OFF(add_region(c, "conv_w", (size_t)conv * ch * f, 0));
    a.alpha = OFF(add_region(c, "alpha", (size_t)vh * f, 0));
    a.beta_in = OFF(add_region(c, "beta_in", (size_t)vh * f, 0));
    a.a_log = OFF(add_region(c, "a_log", (size_t)vh * f, 0));
    a.dt_bias = OFF(add_region(c, "dt_bias", (size_t)vh * f, 0));
    a.state = OFF(add_region(c, "state", (size_t)vh * D * D * f, 0));
    a.out = OFF(add_region(c, "out", (size_t)vh * D * f, 0));
    c->scratch_bytes = ciot_deltanet_scratch_bytes(&a);
    c->scratch_off = add_region(c, "scratch", c->scratch_bytes, 0);
    a.scratch = OFF(c->scratch_off);
    c->args.deltanet = a;
    if (!alloc_case(c)) return;
    draw_region(c, 0, s, p, -3.0f, 3.0f);
    draw_region(c, 1, s, p, -3.0f, 3.0f);
    draw_region(c, 2, s, VAL_RANDOM, -0.6f, 0.6f);
    draw_region(c, 3, s, p == VAL_WIDE ? VAL_WIDE : VAL_RANDOM, -4.0f, 4.0f); /* wide: softplus' both branches */
    draw_region(c, 4, s, p == VAL_WIDE ? VAL_WIDE : VAL_RANDOM, -4.0f, 4.0f);
    draw_region(c, 5, s, VAL_RANDOM, -2.0f, 1.0f);
    draw_region(c, 6, s, VAL_RANDOM, -1.0f, 1.0f);
    draw_region(c, 7, s, p == VAL_LARGE ? VAL_LARGE : VAL_RANDOM, -0.1f, 0.1f);
}

static void case_attention(ops_case *c, int qh, int kvh, int D, int L, int interleaved, val_pattern p, uint64_t *s) {
    snprintf(c->label, sizeof c->label, "q_heads=%d kv_heads=%d head_dim=%d L=%d %s %s", qh, kvh, D, L,
             interleaved ? "q|gate" : "q,gate", val_names[p]);
    int cap = L + 1 + (L & 3); /* room past L + 1 too: left alone */
    ciot_attention_args a = {.q_heads = qh, .kv_heads = kvh, .head_dim = D, .L = L, .capacity = cap,
                             .scale = 1.0f / sqrtf((float)D)};
    size_t f = 4, qd = (size_t)qh * D, kd = (size_t)kvh * D;
    if (interleaved) {
        size_t off = add_region(c, "q|gate", 2 * qd * f, 0);
        a.q = OFF(off), a.gate = OFF(off + (size_t)D * f), a.q_stride = 2 * D;
    } else {
        a.q = OFF(add_region(c, "q", qd * f, 0)), a.gate = OFF(add_region(c, "gate", qd * f, 0)), a.q_stride = D;
    }
    a.k = OFF(add_region(c, "k", kd * f, 0));
    a.v = OFF(add_region(c, "v", kd * f, 0));
    a.k_cache = OFF(add_region(c, "k_cache", kd * cap * 2, 0));
    a.v_cache = OFF(add_region(c, "v_cache", kd * cap * 2, 0));
    a.out = OFF(add_region(c, "out", qd * f, 0));
    c->scratch_bytes = ciot_attention_scratch_bytes(&a);
    c->scratch_off = add_region(c, "scratch", c->scratch_bytes, 0);
    a.scratch = OFF(c->scratch_off);
    c->args.attention = a;
    if (!alloc_case(c)) return;
    int r = 0;
    if (interleaved) draw_region(c, r++, s, p, -2.0f, 2.0f);
    else draw_region(c, r++, s, p, -2.0f, 2.0f), draw_region(c, r++, s, VAL_RANDOM, -4.0f, 4.0f);
    draw_region(c, r++, s, VAL_RANDOM, -2.0f, 2.0f);
    draw_region(c, r++, s, VAL_RANDOM, -2.0f, 2.0f);
    for (int cache = 0; cache < 2; cache++, r++) {
        uint16_t *h = (uint16_t *)(c->drawn + c->r[r].off);
        for (size_t i = 0; i < kd * cap; i++) h[i] = ciot_fp32_to_fp16(draw_uniform(s, -2.0f, 2.0f));
    }
}

static void case_rope(ops_case *c, int qh, int kh, int D, int rot, int pos, uint64_t *s) {
    snprintf(c->label, sizeof c->label, "q_heads=%d k_heads=%d head_dim=%d rot=%d pos=%d", qh, kh, D, rot, pos);
    size_t f = 4;
    size_t q = add_region(c, "q|gate", (size_t)qh * 2 * D * f, 0), k = add_region(c, "k", (size_t)kh * D * f, 0);
    size_t t = add_region(c, "table", (size_t)(pos + 1) * rot * f, 0);
    c->args.rope = (ciot_rope_args){.q = OFF(q), .k = OFF(k), .q_heads = qh, .k_heads = kh, .q_stride = 2 * D,
                                    .head_dim = D, .rot_dims = rot, .table = OFF(t + (size_t)pos * rot * f)};
    if (!alloc_case(c)) return;
    draw_region(c, 0, s, VAL_RANDOM, -3.0f, 3.0f);
    draw_region(c, 1, s, VAL_RANDOM, -3.0f, 3.0f);
    ciot_rope_table(fl(c, 2), pos + 1, rot, 10000000.0);
}

static void case_state_copy(ops_case *c, size_t bytes, size_t skew_src, size_t skew_dst, uint64_t *s) {
    snprintf(c->label, sizeof c->label, "bytes=%zu src+%zu dst+%zu", bytes, skew_src, skew_dst);
    size_t src = add_region(c, "src", bytes, skew_src), dst = add_region(c, "dst", bytes, skew_dst);
    add_region(c, "after dst", 64, 0); /* must keep its sentinel */
    c->args.state_copy = (ciot_state_copy_args){.src = OFF(src), .dst = OFF(dst), .bytes = bytes};
    if (!alloc_case(c)) return;
    for (size_t i = 0; i < bytes; i++) c->drawn[src + i] = (unsigned char)ciot_splitmix64(s);
}

static void case_embed(ops_case *c, ciot_embed_type t, int n, uint64_t *s) {
    snprintf(c->label, sizeof c->label, "%s n=%d", ciot_embed_type_name(t), n);
    size_t rb = ciot_embed_row_bytes(t, n);
    size_t row = add_region(c, "row", rb, 0);
    c->args.embed = (ciot_embed_args){.row = OFF(row), .out = OFF(add_region(c, "out", (size_t)n * 4, 0)), .n = n, .type = t};
    if (!alloc_case(c)) return;
    /* random bytes, with every fp16 or fp32 value finite: floats drawn as values, block scales redrawn */
    if (t == CIOT_EMBED_F32) {
        draw_values((float *)(c->drawn + row), (size_t)n, s, VAL_RANDOM, -1.0f, 1.0f);
        return;
    }
    for (size_t i = 0; i < rb; i++) c->drawn[row + i] = (unsigned char)ciot_splitmix64(s);
    size_t bb = rb / ((size_t)n / ciot_embed_block_values(t)), scale_at = 0, step = bb;
    if (t == CIOT_EMBED_F16 || t == CIOT_EMBED_BF16) step = 2;
    else if (t == CIOT_EMBED_PTQ1_0) scale_at = 26;
    else if (t == CIOT_EMBED_TQ1_0) scale_at = bb - 2;
    else if (t == CIOT_EMBED_TQ2_0) scale_at = bb - 2;
    for (size_t o = scale_at; o + 2 <= rb; o += step) {
        float v = draw_uniform(s, -1.0f, 1.0f);
        uint16_t h = t == CIOT_EMBED_BF16 ? (uint16_t)(ciot_f32_bits(v) >> 16) : ciot_fp32_to_fp16(v);
        memcpy(c->drawn + row + o, &h, 2);
    }
}

static void case_argmax(ops_case *c, int n, int pattern, uint64_t *s) {
    static const char *const names[] = {"random", "ties", "nan", "all -inf", "all nan", "signed zeros"};
    snprintf(c->label, sizeof c->label, "n=%d %s", n, names[pattern]);
    size_t x = add_region(c, "x", (size_t)n * 4, 0);
    ciot_argmax_args a = {.x = OFF(x), .n = n, .index = OFF(add_region(c, "index", 4, 0)),
                          .value = OFF(add_region(c, "value", 4, 0))};
    c->scratch_bytes = ciot_argmax_scratch_bytes(&a);
    c->scratch_off = add_region(c, "scratch", c->scratch_bytes, 0);
    a.scratch = OFF(c->scratch_off);
    c->args.argmax = a;
    if (!alloc_case(c)) return;
    float *v = (float *)(c->drawn + x);
    draw_values(v, (size_t)n, s, VAL_RANDOM, -30.0f, 30.0f);
    for (int i = 0; i < n; i++) {
        switch (pattern) {
        case 1: v[i] = (float)(int)(v[i] / 10.0f); break;     /* a few values, each many times */
        case 2: if (i % 5 == 0 || i == n - 1) v[i] = __builtin_nanf(""); break;
        case 3: v[i] = -__builtin_inff(); break;
        case 4: v[i] = __builtin_nanf(""); break;
        case 5: v[i] = (i % 3) ? 0.0f : -0.0f; break;
        default: break;
        }
    }
}

/* ---- the run ---- */

typedef struct {
    const ciot_oracle_opts *o;
    ciot_oracle_result *res;
    FILE *log;
    unsigned cpu;
    long cap;
    int per_version_pass[8][CIOT_TOK_KINDS], per_version_fail[8][CIOT_TOK_KINDS];
} run_state;

static int version_wanted(const run_state *st, const ciot_token_ops *v, ciot_token_kind k) {
    char name[64];
    snprintf(name, sizeof name, "%s_%s", ciot_token_kind_name(k), v->name);
    return !st->o->filter || strstr(name, st->o->filter);
}

/* Runs one drawn case through every version at every part count (the reference's one-part run is the
 * expectation), then frees it. size: the case's values, left out above the cap. */
static void finish_case(run_state *st, ops_case *c, long size) {
    static const int part_counts[] = {1, 2, 3, 7};
    if (size > st->cap) goto done;
    int wanted = 0;
    for (int vi = 0; vi < ciot_token_ops_count(); vi++) wanted |= version_wanted(st, ciot_token_ops_at(vi), c->kind);
    if (!wanted) goto done;
    if (!c->drawn) {
        fprintf(st->log, "FAIL %s %s: out of memory\n", ciot_token_kind_name(c->kind), c->label);
        st->res->failed++;
        goto done;
    }
    unsigned char *want = aligned_alloc(64, c->bytes), *got = aligned_alloc(64, c->bytes);
    int ref_ok = want && got && run_case(c, &ciot_token_ops_ref, 1, want, st->log);
    for (int vi = 0; vi < ciot_token_ops_count(); vi++) {
        const ciot_token_ops *v = ciot_token_ops_at(vi);
        if (!version_wanted(st, v, c->kind)) continue;
        char name[64];
        snprintf(name, sizeof name, "%s_%s", ciot_token_kind_name(c->kind), v->name);
        for (size_t pi = 0; pi < sizeof part_counts / sizeof *part_counts; pi++) {
            if ((v->features & st->cpu) != v->features) {
                st->res->skipped++;
                continue;
            }
            int ok = ref_ok && run_case(c, v, part_counts[pi], got, st->log) &&
                     compare(c, want, got, name, part_counts[pi], st->log);
            if (ok) st->res->passed++, st->per_version_pass[vi][c->kind]++;
            else st->res->failed++, st->per_version_fail[vi][c->kind]++;
        }
    }
    free(want), free(got);
done:
    free(c->drawn);
    memset(c, 0, sizeof *c);
}

#define NEW_CASE(k) (memset(&c, 0, sizeof c), c.kind = (k), &c)
/* A kind no wanted version has: its cases are not even drawn. */
static int kind_wanted(const run_state *st, ciot_token_kind k) {
    for (int vi = 0; vi < ciot_token_ops_count(); vi++)
        if (version_wanted(st, ciot_token_ops_at(vi), k)) return 1;
    return 0;
}

ciot_status ciot_oracle_ops_run(const ciot_oracle_opts *o, ciot_oracle_result *res) {
    run_state st = {.o = o, .res = res, .log = o->log ? o->log : stderr, .cpu = ciot_cpu_features(),
                    .cap = o->max_weights > 0 ? o->max_weights : o->quick ? 1L << 20 : 6L << 20};
    uint64_t s = 0x70ce11a5u;
    ops_case c;
    /* under the emulator and the sanitizers (a cap of 1M values or less) Bonsai's attention runs at L 0 and
     * 300 only; the chunk edges (255, 256) are met on small heads in every run */
    int small = st.cap <= 1L << 20;
#define WANT(k) if (kind_wanted(&st, k))

    /* rmsnorm: the hidden state, the per-head q norms inside an interleaved q|gate, a minimal row */
    WANT(CIOT_TOK_RMSNORM) for (int p = 0; p < VAL_COUNT; p++) {
        case_rmsnorm(NEW_CASE(CIOT_TOK_RMSNORM), 1, 5120, 0, p, &s), finish_case(&st, &c, 5120);
        case_rmsnorm(NEW_CASE(CIOT_TOK_RMSNORM), 24, 256, 512, p, &s), finish_case(&st, &c, 24 * 512);
        case_rmsnorm(NEW_CASE(CIOT_TOK_RMSNORM), 9, 16, 0, p, &s), finish_case(&st, &c, 9 * 16);
    }
    /* glu: the FFN, a residual add, odd lengths (tails) */
    WANT(CIOT_TOK_GLU) for (int p = 0; p < VAL_COUNT; p++) {
        case_glu(NEW_CASE(CIOT_TOK_GLU), 17408, CIOT_GLU_SILU, p, &s), finish_case(&st, &c, 17408);
        case_glu(NEW_CASE(CIOT_TOK_GLU), 77, CIOT_GLU_SILU, p, &s), finish_case(&st, &c, 77);
        case_glu(NEW_CASE(CIOT_TOK_GLU), 5120, CIOT_GLU_ADD, p, &s), finish_case(&st, &c, 5120);
        case_glu(NEW_CASE(CIOT_TOK_GLU), 13, CIOT_GLU_ADD, p, &s), finish_case(&st, &c, 13);
    }
    /* deltanet: Bonsai's block, then small and odd shapes with every pattern */
    WANT(CIOT_TOK_DELTANET) case_deltanet(NEW_CASE(CIOT_TOK_DELTANET), 16, 48, 128, 4, VAL_RANDOM, &s), finish_case(&st, &c, 48L * 128 * 128);
    WANT(CIOT_TOK_DELTANET) for (int p = 0; p < VAL_COUNT; p++) {
        case_deltanet(NEW_CASE(CIOT_TOK_DELTANET), 2, 6, 32, 4, p, &s), finish_case(&st, &c, 6L * 32 * 32);
        case_deltanet(NEW_CASE(CIOT_TOK_DELTANET), 1, 1, 16, 2, p, &s), finish_case(&st, &c, 256);
        case_deltanet(NEW_CASE(CIOT_TOK_DELTANET), 3, 3, 48, 3, p, &s), finish_case(&st, &c, 3L * 48 * 48);
    }
    /* attention: Bonsai's block at an empty cache, one chunk, a chunk and one position, several chunks;
     * groups of 1, 4 and 7 (past one batch of six); every pattern on a small case */
    static const int bonsai_L[] = {0, 255, 256, 300, 1100};
    WANT(CIOT_TOK_ATTENTION) for (size_t i = 0; i < sizeof bonsai_L / sizeof *bonsai_L; i++) {
        int L = bonsai_L[i];
        if (small && L != 0 && L != 300) continue;
        case_attention(NEW_CASE(CIOT_TOK_ATTENTION), 24, 4, 256, L, 1, VAL_RANDOM, &s);
        finish_case(&st, &c, 2L * 4 * 256 * (L + 1));
    }
    WANT(CIOT_TOK_ATTENTION) for (int L = 255; L <= 256; L++) {
        case_attention(NEW_CASE(CIOT_TOK_ATTENTION), 3, 3, 16, L, 1, VAL_RANDOM, &s);
        finish_case(&st, &c, 2L * 3 * 16 * (L + 1));
    }
    WANT(CIOT_TOK_ATTENTION) for (int p = 0; p < VAL_COUNT; p++) {
        case_attention(NEW_CASE(CIOT_TOK_ATTENTION), 8, 2, 32, 520, 0, p, &s), finish_case(&st, &c, 2L * 2 * 32 * 521);
        case_attention(NEW_CASE(CIOT_TOK_ATTENTION), 3, 3, 16, 17, 1, p, &s), finish_case(&st, &c, 2L * 3 * 16 * 18);
        case_attention(NEW_CASE(CIOT_TOK_ATTENTION), 7, 1, 48, 40, 0, p, &s), finish_case(&st, &c, 2L * 48 * 41);
    }
    /* rope: Bonsai's 24 q heads (in q|gate) and 4 k heads, 64 of 256 dims rotated; full rotation */
    WANT(CIOT_TOK_ROPE) case_rope(NEW_CASE(CIOT_TOK_ROPE), 24, 4, 256, 64, 4095, &s), finish_case(&st, &c, 4096L * 64);
    WANT(CIOT_TOK_ROPE) case_rope(NEW_CASE(CIOT_TOK_ROPE), 3, 1, 16, 16, 7, &s), finish_case(&st, &c, 8L * 16);
    /* state_copy: a DeltaNet block's 3 MiB; odd sizes and alignments */
    WANT(CIOT_TOK_STATE_COPY) case_state_copy(NEW_CASE(CIOT_TOK_STATE_COPY), 3u << 20, 0, 0, &s), finish_case(&st, &c, (3L << 20) / 4);
    WANT(CIOT_TOK_STATE_COPY) case_state_copy(NEW_CASE(CIOT_TOK_STATE_COPY), 1000003, 3, 5, &s), finish_case(&st, &c, 1000003 / 4);
    WANT(CIOT_TOK_STATE_COPY) case_state_copy(NEW_CASE(CIOT_TOK_STATE_COPY), 200, 0, 33, &s), finish_case(&st, &c, 50);
    WANT(CIOT_TOK_STATE_COPY) case_state_copy(NEW_CASE(CIOT_TOK_STATE_COPY), 0, 0, 0, &s), finish_case(&st, &c, 0);
    /* embed: every type at the hidden size, and one block */
    WANT(CIOT_TOK_EMBED) for (int t = CIOT_EMBED_F32; t <= CIOT_EMBED_TQ2_0; t++) {
        case_embed(NEW_CASE(CIOT_TOK_EMBED), t, 5120, &s), finish_case(&st, &c, 5120);
        case_embed(NEW_CASE(CIOT_TOK_EMBED), t, ciot_embed_block_values(t), &s), finish_case(&st, &c, 256);
    }
    /* argmax: the LM head's outputs, chunk edges, ties, NaN, all -inf, all NaN, signed zeros */
    WANT(CIOT_TOK_ARGMAX) case_argmax(NEW_CASE(CIOT_TOK_ARGMAX), 248320, 0, &s), finish_case(&st, &c, 248320);
    WANT(CIOT_TOK_ARGMAX) for (int p = 0; p < 6; p++) {
        case_argmax(NEW_CASE(CIOT_TOK_ARGMAX), 2 * CIOT_ARGMAX_CHUNK + 5, p, &s), finish_case(&st, &c, 2 * CIOT_ARGMAX_CHUNK);
        case_argmax(NEW_CASE(CIOT_TOK_ARGMAX), 11, p, &s), finish_case(&st, &c, 11);
    }

#undef WANT
    /* one line per version and kind, as the kernels have */
    for (int vi = 0; vi < ciot_token_ops_count(); vi++) {
        const ciot_token_ops *v = ciot_token_ops_at(vi);
        for (int k = 0; k < CIOT_TOK_KINDS; k++) {
            if (!version_wanted(&st, v, k)) continue;
            char name[64];
            snprintf(name, sizeof name, "%s_%s", ciot_token_kind_name(k), v->name);
            if ((v->features & st.cpu) != v->features) {
                char buf[128];
                fprintf(st.log, "  %-28s skipped: this CPU lacks %s\n", name,
                        ciot_feature_list(v->features & ~st.cpu, buf, sizeof buf));
                res->kernels_skipped++;
                continue;
            }
            res->kernels_run++;
            if (o->verbose)
                fprintf(st.log, "  %-28s %d passed, %d failed\n", name, st.per_version_pass[vi][k],
                        st.per_version_fail[vi][k]);
        }
    }
    return CIOT_OK;
}
