/* CPU feature parsing and CIOT_CPU masking: dispatch can be tested without the hardware. */
#include <stdlib.h>
#include "check.h"
#include "cpu.h"
#include "kernel.h"
#include "registry.h"

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
    for (int i = 0; i < ciot_kernel_count(); i++) {
        const ciot_kernel *k = ciot_kernel_at(i);
        CHECK(!k->features || ciot_kernel_missing(k, ciot_cpu_features()), "%s still available with none", k->name);
    }
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
