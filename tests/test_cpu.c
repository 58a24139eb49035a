/* CPU feature parsing and CIOT_CPU masking: dispatch can be tested without the hardware. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
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

int main(void) {
    unsigned m;
    const char *bad;
    int len;
    CHECK(ciot_cpu_parse("dotprod,i8mm", &m, &bad, &len) == CIOT_OK && m == (CIOT_F_DOTPROD | CIOT_F_I8MM), "parse list");
    CHECK(ciot_cpu_parse("none", &m, &bad, &len) == CIOT_OK && m == 0, "none");
    CHECK(ciot_cpu_parse("", &m, &bad, &len) == CIOT_OK && m == 0, "empty");
    CHECK(ciot_cpu_parse("avx2,sse9", &m, &bad, &len) == CIOT_E_UNKNOWN && len == 4, "unknown name reported");
    const unsigned hw = ciot_cpu_detect();
    setenv("CIOT_CPU", "none", 1);
    CHECK(ciot_cpu_features() == 0, "CIOT_CPU=none hides every feature");
    for (int i = 0; i < ciot_kernel_count(); i++) check_declared_features(ciot_kernel_at(i));
    for (int l = 0; l < ciot_layout_count(); l++) {
        const ciot_kernel *k = ciot_kernel_best(ciot_layout_at(l), CIOT_OP_GEMV, 0);
        CHECK(k && k->features == 0, "layout %s falls back to a reference", ciot_layout_at(l)->name);
    }
    setenv("CIOT_CPU", "neon,dotprod,avx2,fma", 1);
    CHECK(ciot_cpu_features() == (hw & (CIOT_F_NEON | CIOT_F_DOTPROD | CIOT_F_AVX2 | CIOT_F_FMA)), "mask keeps only listed");
    CHECK(!ciot_cpu_has_i8mm() && !ciot_cpu_has_avxvnni(), "masked features are off");
    unsetenv("CIOT_CPU");
    CHECK(ciot_cpu_features() == hw, "no mask: detected features");
#if defined(__aarch64__)
    CHECK(ciot_cpu_has_neon(), "aarch64 always has NEON");
    CHECK(!ciot_cpu_has_avx2(), "no AVX2 on aarch64");
#elif defined(__x86_64__)
    CHECK(!ciot_cpu_has_neon() && !ciot_cpu_has_dotprod(), "no NEON on x86");
#endif
    /* the chosen kernel per layout is available and the last available of its layout */
    for (int l = 0; l < ciot_layout_count(); l++) {
        const ciot_kernel *k = ciot_kernel_best(ciot_layout_at(l), CIOT_OP_GEMV, hw);
        CHECK(k && !ciot_kernel_missing(k, hw), "a gemv is chosen for %s", ciot_layout_at(l)->name);
    }
    return check_summary();
}
