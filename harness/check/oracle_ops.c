/* The token ops' oracle: every version of every kind (kernels/ops/token_ops.h) on drawn inputs, against the
 * reference run whole (one part), bit for bit, for 1, 2, 3 and 7 parts. Each case lives in one arena (inputs,
 * outputs filled with a sentinel, states updated in place, scratch); a run starts from a fresh copy of the
 * drawn arena, and every byte of it but the scratch must come out as the reference left it: outputs written,
 * inputs untouched. The parts of a phase run last part first, so a part that reads what another part of
 * the same phase writes shows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cpu.h"
#include "fp16.h"
#include "kernel.h"
#include "oracle_ops.h"
#include "os.h"
#include "token_kind.h"

#define MAX_REGIONS 16
#define SENTINEL 0x7fc0deadu

typedef struct {
    const char *name;
    size_t off, bytes;
} region;

typedef struct {
    const ciot_token_kind *kind;
    ciot_token_args args; /* pointers as offsets into the arena (bind adds the base) */
    const int *pointers;  /* offsetof the args' pointers, -1 ends */
    region r[MAX_REGIONS];
    int nr;
    size_t bytes, scratch_off, scratch_bytes;
    unsigned char *drawn;
} ops_case;

/* ---- arena layout ---- */

static void *at(unsigned char *base, const void *off) { return base + (uintptr_t)off; }

/* The args with the arena's base added to every pointer the kind names. */
static ciot_token_args bind(const ops_case *c, unsigned char *base) {
    ciot_token_args u = c->args;
    for (const int *p = c->pointers; *p >= 0; p++) {
        void *f;
        memcpy(&f, u.bytes + *p, sizeof f);
        f = f ? at(base, f) : NULL;
        memcpy(u.bytes + *p, &f, sizeof f);
    }
    return u;
}

/* ---- running ---- */

static void run_version(const ciot_token_ops *v, const ciot_token_kind *k, const ciot_token_args *a, int parts) {
    for (int ph = 0; ph < k->phases(a); ph++)
        for (int p = parts - 1; p >= 0; p--) ciot_token_run(k, v, a, ph, p, parts);
}

/* Runs v on a fresh copy of the drawn arena into work. */
static int run_case(const ops_case *c, const char *label, const ciot_token_ops *v, int parts, unsigned char *work,
                    FILE *log) {
    memcpy(work, c->drawn, c->bytes);
    ciot_token_args a = bind(c, work);
    char why[256];
    if (c->kind->check(&a, why, sizeof why) != CIOT_OK) {
        fprintf(log, "FAIL %s_%s %s: the case's args are refused: %s\n", c->kind->name, v->name, label, why);
        return 0;
    }
    run_version(v, c->kind, &a, parts);
    return 1;
}

/* Every byte outside the scratch as in want; reports the first few differences by region. */
static int compare(const ops_case *c, const char *label, const unsigned char *want, const unsigned char *got,
                   const char *name, int parts, FILE *log) {
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
                        name, label, parts, r->name, j, e, w, ciot_bits_f32(w), g, ciot_bits_f32(g));
            }
            j = (j | 3);    /* one report per word */
        }
    }
    return bad == 0;
}

/* ---- the run ---- */

typedef struct {
    ciot_op_cases cases;    /* first: the kinds' cases call back with a pointer to it */
    const ciot_oracle_opts *o;
    ciot_oracle_result *res;
    FILE *log;
    unsigned cpu;
    long cap;
    ops_case c;             /* the case being drawn */
    int per_version_pass[8][CIOT_STEP_KINDS], per_version_fail[8][CIOT_STEP_KINDS];
} run_state;

static int version_wanted(const run_state *st, const ciot_token_ops *v, const ciot_token_kind *k) {
    char name[64];
    snprintf(name, sizeof name, "%s_%s", k->name, v->name);
    return !st->o->filter || strstr(name, st->o->filter);
}

/* Reserves bytes (64-byte aligned, plus skew) named name; returns the offset. */
static size_t add_region(ciot_op_cases *cs, const char *name, size_t bytes, size_t skew) {
    ops_case *c = &((run_state *)cs)->c;
    if (c->bytes == 0) c->bytes = 64; /* offset 0 would read as a NULL pointer */
    size_t off = ((c->bytes + 63) & ~(size_t)63) + skew;
    if (c->nr < MAX_REGIONS) c->r[c->nr++] = (region){name, off, bytes};
    c->bytes = off + bytes;
    return off;
}

static void set_scratch(ciot_op_cases *cs, size_t offset) {
    ops_case *c = &((run_state *)cs)->c;
    for (int i = 0; i < c->nr; i++)
        if (c->r[i].off == offset) c->scratch_off = offset, c->scratch_bytes = c->r[i].bytes;
}

static void set_args(ciot_op_cases *cs, const void *args, size_t size, const int *pointers) {
    ops_case *c = &((run_state *)cs)->c;
    memcpy(c->args.bytes, args, size < sizeof c->args.bytes ? size : sizeof c->args.bytes);
    c->pointers = pointers;
}

static unsigned char *alloc_case(ciot_op_cases *cs) {
    ops_case *c = &((run_state *)cs)->c;
    c->bytes = (c->bytes + 63) & ~(size_t)63;
    c->drawn = ciot_os_aligned_alloc(64, c->bytes ? c->bytes : 64);
    if (!c->drawn) return NULL;
    for (size_t i = 0; i + 4 <= c->bytes; i += 4) memcpy(c->drawn + i, &(uint32_t){SENTINEL}, 4);
    return c->drawn;
}

/* Runs one drawn case through every version at every part count (the reference's one-part run is the
 * expectation), then frees it and starts the next. size: the case's values, left out above the cap. */
static void finish_case(ciot_op_cases *cs, long size) {
    static const int part_counts[] = {1, 2, 3, 7};
    run_state *st = (run_state *)cs;
    ops_case *c = &st->c;
    const char *label = cs->label, *kname = c->kind->name;
    const int k = ciot_step_kind_of(kname);
    if (size > st->cap) goto done;
    if (!c->drawn) {
        fprintf(st->log, "FAIL %s %s: out of memory\n", kname, label);
        st->res->failed++;
        goto done;
    }
    unsigned char *want = ciot_os_aligned_alloc(64, c->bytes), *got = ciot_os_aligned_alloc(64, c->bytes);
    int ref_ok = want && got && run_case(c, label, &ciot_token_ops_ref, 1, want, st->log);
    for (int vi = 0; vi < ciot_token_ops_count(); vi++) {
        const ciot_token_ops *v = ciot_token_ops_at(vi);
        if (!version_wanted(st, v, c->kind)) continue;
        char name[64];
        snprintf(name, sizeof name, "%s_%s", kname, v->name);
        for (size_t pi = 0; pi < sizeof part_counts / sizeof *part_counts; pi++) {
            if ((v->features & st->cpu) != v->features) {
                st->res->skipped++;
                continue;
            }
            int ok = ref_ok && run_case(c, label, v, part_counts[pi], got, st->log) &&
                     compare(c, label, want, got, name, part_counts[pi], st->log);
            if (ok) st->res->passed++, st->per_version_pass[vi][k]++;
            else st->res->failed++, st->per_version_fail[vi][k]++;
        }
    }
    ciot_os_aligned_free(want), ciot_os_aligned_free(got);
done:
    ciot_os_aligned_free(c->drawn);
    const ciot_token_kind *kind = c->kind;
    memset(c, 0, sizeof *c);
    c->kind = kind;
}

/* A kind no wanted version has: its cases are not even drawn. */
static int kind_wanted(const run_state *st, const ciot_token_kind *k) {
    for (int vi = 0; vi < ciot_token_ops_count(); vi++)
        if (version_wanted(st, ciot_token_ops_at(vi), k)) return 1;
    return 0;
}

/* Each kind's draws start from a seed of its own name, so a filter or a new kind changes no other's cases. */
static uint64_t seed_of(const char *name) {
    uint64_t h = 0x70ce11a5u;
    for (const char *p = name; *p; p++) h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
    return h;
}

/* One line per version and kind with cases, as the kernels have. */
static void report(run_state *st) {
    for (int vi = 0; vi < ciot_token_ops_count(); vi++) {
        const ciot_token_ops *v = ciot_token_ops_at(vi);
        for (int k = 1; k < CIOT_STEP_KINDS; k++) {
            const ciot_token_kind *kind = ciot_token_kind_of((ciot_step_kind)k);
            if (!kind->cases || !version_wanted(st, v, kind)) continue;
            char name[64];
            snprintf(name, sizeof name, "%s_%s", kind->name, v->name);
            if ((v->features & st->cpu) != v->features) {
                char buf[128];
                fprintf(st->log, "  %-28s skipped: this CPU lacks %s\n", name,
                        ciot_feature_list(v->features & ~st->cpu, buf, sizeof buf));
                st->res->kernels_skipped++;
                continue;
            }
            st->res->kernels_run++;
            if (st->o->verbose)
                fprintf(st->log, "  %-28s %d passed, %d failed\n", name, st->per_version_pass[vi][k],
                        st->per_version_fail[vi][k]);
        }
    }
}

ciot_status ciot_oracle_ops_run(const ciot_oracle_opts *o, ciot_oracle_result *res) {
    run_state *st = calloc(1, sizeof *st);
    if (!st) return CIOT_E_NOMEM;
    *st = (run_state){.o = o, .res = res, .log = o->log ? o->log : stderr, .cpu = ciot_cpu_features(),
                      .cap = o->max_weights > 0 ? o->max_weights : o->quick ? 1L << 20 : 6L << 20};
    st->cases = (ciot_op_cases){.small = st->cap <= 1L << 20, .region = add_region, .scratch = set_scratch,
                                .args = set_args, .alloc = alloc_case, .finish = finish_case};
    for (int k = 1; k < CIOT_STEP_KINDS; k++) {
        const ciot_token_kind *kind = ciot_token_kind_of((ciot_step_kind)k);
        if (!kind->cases || !kind_wanted(st, kind)) continue;
        st->c = (ops_case){.kind = kind};
        st->cases.seed = seed_of(kind->name);
        kind->cases(&st->cases);
    }
    report(st);
    free(st);
    return CIOT_OK;
}
