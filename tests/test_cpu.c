/* CPU feature parsing and CIOT_CPU masking: dispatch can be tested without the hardware. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "cpu_mask.h"
#include "cpu.h"
#include "kernel.h"
#include "registry.h"

/* The features a kernel's ISA (its name's last token, which is also its file's suffix and so its compile
 * flags) needs at run time: a descriptor that forgets one would run on a CPU without it (SIGILL). */
static const struct { const char *suffix; unsigned needs; } isa_needs[] = {
    {"ref", 0},
    {"avx2", CIOT_F_AVX2 | CIOT_F_FMA},
    {"avxvnni", CIOT_F_AVXVNNI | CIOT_F_AVX2 | CIOT_F_FMA},
    {"avx512vnni", CIOT_F_AVX512VNNI | CIOT_F_AVX2 | CIOT_F_FMA},
    {"avx512vbmi", CIOT_F_AVX512VBMI | CIOT_F_AVX2 | CIOT_F_FMA},
    {"neon", CIOT_F_NEON},
    {"neondot", CIOT_F_NEON | CIOT_F_DOTPROD},
    {"i8mm", CIOT_F_NEON | CIOT_F_DOTPROD | CIOT_F_I8MM},
};

static void check_declared_features(const ciot_kernel *k) {
    const char *suffix = strrchr(k->name, '_');
    for (size_t i = 0; suffix && i < sizeof isa_needs / sizeof *isa_needs; i++)
        if (!strcmp(suffix + 1, isa_needs[i].suffix)) {
            const unsigned needs = isa_needs[i].needs;
            /* references need nothing; an ISA kernel needs at least its ISA's features */
            CHECK(needs ? (k->features & needs) == needs : k->features == 0,
                  "%s declares features 0x%x, its ISA needs 0x%x", k->name, k->features, needs);
            return;
        }
    CHECK(0, "%s: its name ends in no ISA this test knows (add it to isa_needs)", k->name);
}

/* The family a kernel says its inner loop multiplies with (kernel.h: what its gemm's compute roof is) fits
 * what it declares it runs on: a reference is scalar, a lookup kernel reads a grouped lookup-table layout,
 * and a multiply family needs its feature. */
static void check_declared_mac(const ciot_kernel *k) {
    static const unsigned family_needs[] = {[CIOT_MAC_AVX2] = CIOT_F_AVX2, [CIOT_MAC_AVXVNNI] = CIOT_F_AVXVNNI,
                                            [CIOT_MAC_AVX512VNNI] = CIOT_F_AVX512VNNI,
                                            [CIOT_MAC_NEONDOT] = CIOT_F_DOTPROD, [CIOT_MAC_I8MM] = CIOT_F_I8MM};
    if (k->features == 0) {
        CHECK(k->mac == CIOT_MAC_SCALAR, "%s: a reference declares mac %d, expected scalar", k->name, (int)k->mac);
    } else if (k->mac == CIOT_MAC_LOOKUP) {
        CHECK(k->layout->group_tiles > 1, "%s: a lookup kernel on %s, not a lookup-table layout", k->name,
              k->layout->name);
    } else {
        const int known = k->mac > CIOT_MAC_LOOKUP && k->mac <= CIOT_MAC_I8MM;
        CHECK(known && (k->features & family_needs[k->mac]) == family_needs[k->mac],
              "%s: mac %d is not a multiply family its features 0x%x have", k->name, (int)k->mac, k->features);
    }
}

/* The reference twin a kernel is checked against (kernel.h: a pointer the linker checks) is a registered
 * reference, its own twin, on the same bytes, activations and op. */
static void check_declared_twin(const ciot_kernel *k) {
    const ciot_kernel *t = k->reference;
    CHECK(ciot_kernel_find(t->name) == t, "%s: its twin %s is registered", k->name, t->name);
    CHECK(t->reference == t && t->features == 0, "%s: its twin %s is a reference", k->name, t->name);
    CHECK(t->layout == k->layout && t->act == k->act && t->op == k->op, "%s: its twin %s reads the same layout, "
          "activations and op", k->name, t->name);
}

/* The registry's choice for a source file's gemv (or gemm) under a feature set is the named kernel. */
static void expect_best_op(ciot_format f, ciot_op op, unsigned features, const char *name, const char *what) {
    const ciot_kernel *k = ciot_kernel_best_source(f, op, features);
    CHECK(k && !strcmp(k->name, name), "%s: %s (expected %s)", what, k ? k->name : "none", name);
}

static void expect_best(ciot_format f, unsigned features, const char *name, const char *what) {
    expect_best_op(f, CIOT_OP_GEMV, features, name, what);
}

int main(void) {
    unsigned m;
    const char *bad;
    int len;
    CHECK(ciot_cpu_parse("dotprod,i8mm", &m, &bad, &len) == CIOT_OK && m == (CIOT_F_DOTPROD | CIOT_F_I8MM), "parse list");
    CHECK(ciot_cpu_parse("none", &m, &bad, &len) == CIOT_OK && m == 0, "none");
    CHECK(ciot_cpu_parse("", &m, &bad, &len) == CIOT_OK && m == 0, "empty");
    CHECK(ciot_cpu_parse("avx2,sse9", &m, &bad, &len) == CIOT_E_UNKNOWN && len == 4, "unknown name reported");
    /* masks separated by ':' intersect, whichever order; a bad name in any of them is reported */
    CHECK(ciot_cpu_parse("avx2,fma:avx2,fma,avx512vnni", &m, &bad, &len) == CIOT_OK && m == (CIOT_F_AVX2 | CIOT_F_FMA),
          "two masks intersect");
    CHECK(ciot_cpu_parse("avx512vnni,avx2:avx2,fma", &m, &bad, &len) == CIOT_OK && m == CIOT_F_AVX2, "order does not matter");
    CHECK(ciot_cpu_parse("none:avx2,fma", &m, &bad, &len) == CIOT_OK && m == 0, "none intersected is none");
    CHECK(ciot_cpu_parse("avx2:avx2:avx2,neon", &m, &bad, &len) == CIOT_OK && m == CIOT_F_AVX2, "three masks");
    CHECK(ciot_cpu_parse("avx2:sse9,fma", &m, &bad, &len) == CIOT_E_UNKNOWN && len == 4 && !strncmp(bad, "sse9", 4),
          "unknown name in the second mask reported");
    const unsigned host = ciot_cpu_features();   /* this CPU as the run sees it: the test's own masks only take away */
    CHECK((host & ~ciot_cpu_detect()) == 0, "a mask never adds a feature");
    test_mask_cpu("none");
    CHECK(ciot_cpu_features() == 0, "CIOT_CPU=none hides every feature");
    for (int i = 0; i < ciot_kernel_count(); i++) {
        check_declared_features(ciot_kernel_at(i));
        check_declared_mac(ciot_kernel_at(i));
        check_declared_twin(ciot_kernel_at(i));
    }
    for (int l = 0; l < ciot_layout_count(); l++) {
        const ciot_kernel *k = ciot_kernel_best(ciot_layout_at(l), CIOT_OP_GEMV, 0);
        CHECK(k && k->features == 0, "layout %s falls back to a reference", ciot_layout_at(l)->name);
        /* a gemm too (replay --batch runs every op of a model, whatever its shape) */
        const ciot_kernel *g = ciot_kernel_best(ciot_layout_at(l), CIOT_OP_GEMM, 0);
        CHECK(g && g->features == 0, "layout %s falls back to a gemm reference", ciot_layout_at(l)->name);
    }
    test_mask_cpu("neon,dotprod,avx2,fma");
    CHECK(ciot_cpu_features() == (host & (CIOT_F_NEON | CIOT_F_DOTPROD | CIOT_F_AVX2 | CIOT_F_FMA)), "mask keeps only listed");
    CHECK(!ciot_cpu_has_i8mm() && !ciot_cpu_has_avxvnni(), "masked features are off");
    test_unmask_cpu();
    CHECK(ciot_cpu_features() == host, "the run's own mask again");
    const unsigned hw = host;
#if defined(__aarch64__)
    CHECK(ciot_cpu_detect() & CIOT_F_NEON, "aarch64 always has NEON");
    CHECK(!ciot_cpu_has_avx2(), "no AVX2 on aarch64");
#elif defined(__x86_64__)
    CHECK(!ciot_cpu_has_neon() && !ciot_cpu_has_dotprod(), "no NEON on x86");
#endif
    /* the chosen kernel per layout is available and the last available of its layout */
    for (int l = 0; l < ciot_layout_count(); l++) {
        const ciot_kernel *k = ciot_kernel_best(ciot_layout_at(l), CIOT_OP_GEMV, hw);
        CHECK(k && !ciot_kernel_missing(k, hw), "a gemv is chosen for %s", ciot_layout_at(l)->name);
    }
    /* per source file: the last available kernel of that source in table order (the .def ranking) */
    static const unsigned masks[] = {0, CIOT_F_AVX2 | CIOT_F_FMA, CIOT_F_NEON | CIOT_F_DOTPROD, ~0u};
    for (size_t mi = 0; mi < sizeof masks / sizeof *masks; mi++)
        for (int l = 0; l < ciot_layout_count(); l++) { /* every source a layout is made from */
            const ciot_format f = ciot_layout_at(l)->source;
            const unsigned cpu = hw & masks[mi];
            const ciot_kernel *k = ciot_kernel_best_source(f, CIOT_OP_GEMV, cpu), *last = NULL;
            for (int i = 0; i < ciot_kernel_count(); i++) {
                const ciot_kernel *c = ciot_kernel_at(i);
                if (c->layout->source == f && c->op == CIOT_OP_GEMV && !ciot_kernel_missing(c, cpu)) last = c;
            }
            CHECK(k && k == last && k->layout->source == f, "source %s, features 0x%x: chose %s, expected %s",
                  ciot_format_name(f), cpu, k ? k->name : "none", last ? last->name : "none");
            if (!cpu) CHECK(k && k->features == 0, "source %s falls back to a reference", ciot_format_name(f));
        }
#if defined(__x86_64__)
    /* the measured ranking (results/x86-kernels-notes.md): TL3 beats the PTQ1_0 kernels and TL2 the T2P ones,
     * with AVX2 only and with VBMI, in cache and from DRAM */
    /* (the registry's choice is a function of the feature set given: these hold whatever this CPU has) */
    const unsigned avx2 = CIOT_F_AVX2 | CIOT_F_FMA, x86_all = avx2 | CIOT_F_AVXVNNI | CIOT_F_AVX512VNNI | CIOT_F_AVX512VBMI;
    {
        expect_best(CIOT_FMT_PTQ1_0, avx2, "tl3_gemv_avx2", "PTQ1_0 with AVX2 only");
        expect_best(CIOT_FMT_PQ2_0, avx2, "tl2_gemv_avx2", "PQ2_0 with AVX2 only");
        expect_best(CIOT_FMT_TQ1_0, avx2, "tl3_tq1_gemv_avx2", "TQ1_0 with AVX2 only");
        /* the PTQ1_0 file's only gemm is TL3's lookups per activation row */
        expect_best_op(CIOT_FMT_PTQ1_0, CIOT_OP_GEMM, avx2, "tl3_gemm_avx2", "PTQ1_0 gemm with AVX2 only");
        expect_best_op(CIOT_FMT_PQ2_0, CIOT_OP_GEMM, avx2, "tl2_gemm_avx2", "PQ2_0 gemm with AVX2 only");
        expect_best_op(CIOT_FMT_TQ1_0, CIOT_OP_GEMM, avx2, "tl3_tq1_gemm_avx2", "TQ1_0 gemm with AVX2 only");
    }
    /* AVX-512 VNNI without VBMI (Cascade Lake): the TL2 dot-product kernel is faster in cache only; from DRAM the
     * AVX2 lookups are as fast or faster, and the ranking keeps them */
    {
        expect_best(CIOT_FMT_PQ2_0, avx2 | CIOT_F_AVX512VNNI, "tl2_gemv_avx2", "PQ2_0 with AVX-512 VNNI, no VBMI");
        /* the gemm is compute-bound: there the dot-product TL2 kernel is the fastest, VBMI or not */
        expect_best_op(CIOT_FMT_PQ2_0, CIOT_OP_GEMM, avx2 | CIOT_F_AVX512VNNI, "tl2_gemm_avx512vnni",
                       "PQ2_0 gemm with AVX-512 VNNI, no VBMI");
        expect_best_op(CIOT_FMT_PQ2_0, CIOT_OP_GEMM, x86_all, "tl2_gemm_avx512vnni", "PQ2_0 gemm, every feature");
    }
    {
        expect_best(CIOT_FMT_PTQ1_0, x86_all, "tl3_gemv_avx512vbmi", "PTQ1_0 with VBMI");
        expect_best(CIOT_FMT_PQ2_0, x86_all, "tl2_gemv_avx512vbmi", "PQ2_0 with VBMI");
        expect_best(CIOT_FMT_TQ1_0, x86_all, "tl3_tq1_gemv_avx512vbmi", "TQ1_0 with VBMI");
        expect_best_op(CIOT_FMT_PTQ1_0, CIOT_OP_GEMM, x86_all, "tl3_gemm_avx512vbmi", "PTQ1_0 gemm with VBMI");
        expect_best_op(CIOT_FMT_TQ1_0, CIOT_OP_GEMM, x86_all, "tl3_tq1_gemm_avx512vbmi", "TQ1_0 gemm with VBMI");
    }
#elif defined(__aarch64__)
    /* TQ1_0 through TL3 needs only base Advanced SIMD: chosen on every aarch64 CPU. Without dotprod the
     * lookup kernels are the only vector path; with it, T2P wins PQ2_0 and TL3 PTQ1_0 (static cost). */
    const unsigned dot = CIOT_F_NEON | CIOT_F_DOTPROD;
    expect_best(CIOT_FMT_TQ1_0, CIOT_F_NEON, "tl3_tq1_gemv_neon", "TQ1_0 with NEON only");
    expect_best(CIOT_FMT_PQ2_0, CIOT_F_NEON, "tl2_gemv_neon", "PQ2_0 with NEON only");
    expect_best(CIOT_FMT_PTQ1_0, CIOT_F_NEON, "tl3_gemv_neon", "PTQ1_0 with NEON only");
    expect_best(CIOT_FMT_PQ2_0, dot, "t2p_gemv_neondot", "PQ2_0 with dotprod");
    expect_best(CIOT_FMT_PTQ1_0, dot, "tl3_gemv_neon", "PTQ1_0 with dotprod");
    expect_best_op(CIOT_FMT_PTQ1_0, CIOT_OP_GEMM, CIOT_F_NEON, "tl3_gemm_neon", "PTQ1_0 gemm with NEON only");
    expect_best_op(CIOT_FMT_PQ2_0, CIOT_OP_GEMM, CIOT_F_NEON, "tl2_gemm_neon", "PQ2_0 gemm with NEON only");
    expect_best_op(CIOT_FMT_TQ1_0, CIOT_OP_GEMM, CIOT_F_NEON, "tl3_tq1_gemm_neon", "TQ1_0 gemm with NEON only");
    expect_best_op(CIOT_FMT_PQ2_0, CIOT_OP_GEMM, dot, "t2p_gemm_neondot", "PQ2_0 gemm with dotprod");
#endif
    return check_summary();
}
