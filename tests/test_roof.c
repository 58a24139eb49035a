/* The roof a benchmark row is judged against (harness/measure/roof.h): the intensity, the min of the two roofs and
 * which one bounds, a gemv keeping its read ratio, no roof for lookup and scalar gemms, the family of every
 * registered kernel, and the compute probe's sizing and single samples that bench pairs with a gemm. */
#include <math.h>
#include <string.h>
#include "check.h"
#include "pool.h"
#include "probe_compute.h"
#include "registry.h"
#include "roof.h"

static int near(double a, double b) { return fabs(a - b) <= 1e-12 * fabs(b); }

static void test_bound(void) {
    CHECK(near(ciot_intensity(4, 256, 2, 256), 8), "intensity = rows x K x batch / bytes");
    CHECK(ciot_intensity(4, 256, 2, 0) == 0, "no bytes: intensity 0, not a division by zero");

    /* a gemv keeps its read ratio as it is, even where a compute roof would be lower */
    ciot_roof r = ciot_roof_of(0, 4, 10, 5, 30, 0.7512345);
    CHECK(r.kind == CIOT_ROOF_BW && near(r.bw_gmacs, 40) && near(r.bound_gmacs, 40) && r.ratio == 0.7512345,
          "gemv: bw, bound 40, the read ratio itself (kind %d, bound %g, ratio %.17g)", r.kind, r.bound_gmacs, r.ratio);

    /* gemm above the ridge: the compute sample bounds it */
    r = ciot_roof_of(1, 100, 10, 50, 40, 0.04);
    CHECK(r.kind == CIOT_ROOF_COMPUTE && near(r.bw_gmacs, 1000) && near(r.bound_gmacs, 50) && near(r.ratio, 0.8),
          "gemm, compute-bound: bound 50, ratio 0.8 (kind %d, bound %g, ratio %g)", r.kind, r.bound_gmacs, r.ratio);
    r = ciot_roof_of(1, 100, 10, 20, 30, 0.03);
    CHECK(r.kind == CIOT_ROOF_COMPUTE && near(r.ratio, 1.5), "gemm above its compute sample: ratio 1.5, not capped");

    /* gemm below the ridge: the bus bounds it, and its ratio is the read ratio */
    r = ciot_roof_of(1, 2, 10, 50, 15, 0.75);
    CHECK(r.kind == CIOT_ROOF_BW && near(r.bound_gmacs, 20) && r.ratio == 0.75,
          "gemm, bw-bound: bound 20, the read ratio (kind %d, bound %g, ratio %g)", r.kind, r.bound_gmacs, r.ratio);
    r = ciot_roof_of(1, 5, 10, 50, 15, 0.3);
    CHECK(r.kind == CIOT_ROOF_BW, "gemm exactly at the ridge: the bw roof (the lower-or-equal one)");

    /* gemm without a compute roof: no bound, no ratio, the bw roof still recorded */
    r = ciot_roof_of(1, 100, 10, 0, 40, 0.04);
    CHECK(r.kind == CIOT_ROOF_NONE && r.bound_gmacs == 0 && r.ratio == 0 && near(r.bw_gmacs, 1000),
          "gemm without a compute family: none (kind %d, bound %g, ratio %g)", r.kind, r.bound_gmacs, r.ratio);
    CHECK(!strcmp(ciot_roof_kind_name(CIOT_ROOF_BW), "bw") && !strcmp(ciot_roof_kind_name(CIOT_ROOF_COMPUTE), "compute") &&
              !strcmp(ciot_roof_kind_name(CIOT_ROOF_NONE), "none"),
          "roof kind names");
}

#if defined(__x86_64__)
/* A gemm that leaves its lookups at a batch: no compute roof at batch `below`, `family`'s at batch `at`. */
static void check_lookups_until(const char *name, int below, int at, ciot_compute_family family) {
    const ciot_kernel *k = ciot_kernel_find(name);
    ciot_compute_family f;
    CHECK(k && !ciot_roof_family(k, below, &f, NULL) && ciot_roof_family(k, at, &f, NULL) && f == family,
          "%s: no compute roof at batch %d (lookups), its family's at %d", name, below, at);
}
#endif

/* Every registered kernel (one whose family changes with the batch at 4 and 64, the others at 64): a gemv is
 * judged by the read ceiling, a lookup or scalar gemm has no compute roof, any other gemm the family its
 * descriptor names for that batch. */
static void test_families(void) {
    int lookups = 0, families = 0, switching = 0; /* switching: read on x86 only, where such kernels are */
    for (int i = 0; i < ciot_kernel_count(); i++)
        for (int batch = ciot_kernel_at(i)->mac_batch ? 4 : 64; batch <= 64; batch += 60) {
            const ciot_kernel *k = ciot_kernel_at(i);
            const ciot_mac mac = ciot_kernel_mac(k, batch);
            ciot_compute_family f;
            const char *why = "unset";
            const int has = ciot_roof_family(k, batch, &f, &why);
            if (k->mac_batch) {
                CHECK(mac == (batch >= k->mac_batch ? k->mac_at_batch : k->mac), "%s at batch %d: the family of its batch",
                      k->name, batch);
                switching += batch >= k->mac_batch && k->mac_at_batch != k->mac;
            }
            if (k->op == CIOT_OP_GEMV) {
                CHECK(!has && why && strstr(why, "gemv"), "%s: a gemv has no compute roof (%s)", k->name, why);
            } else if (mac == CIOT_MAC_LOOKUP) {
                CHECK(!has && why && strstr(why, "lookup"), "%s: a lookup gemm has no compute roof (%s)", k->name, why);
                lookups++;
            } else if (mac == CIOT_MAC_SCALAR) {
                CHECK(!has && why && strstr(why, "scalar"), "%s: a scalar gemm has no compute roof (%s)", k->name, why);
            } else {
                ciot_compute_family want;
                CHECK(has && !why && ciot_compute_family_of(mac, &want) == CIOT_OK && f == want,
                      "%s at batch %d: its gemm is bounded by its family", k->name, batch);
                families++;
            }
        }
    CHECK(lookups > 0 && families > 0, "the registry has lookup gemms (%d) and multiply gemms (%d)", lookups, families);
#if !defined(__x86_64__)
    (void)switching;
#else
    CHECK(switching >= 10, "the TL16, TL3 VBMI, AVX2 TL2 and AVX-VNNI TQ2_0 gemms change family with the batch (%d)",
          switching);
    /* the TL16 gemms: lookups at batch 4, vpmaddubsw summed in int16 at 64, with PTQ1_0's per-32 fp32 step */
    check_lookups_until("tl16_gemm_avx2", 4, 64, CIOT_COMPUTE_AVX2_I16_B32);
    check_lookups_until("tl16_tq1_gemm_avx2", 4, 64, CIOT_COMPUTE_AVX2_I16);
    /* the TL3 VBMI gemms: lookups below their batch, vpdpbusd zmm on decoded quarters from it */
    check_lookups_until("tl3_gemm_avx512vbmi", 4, 16, CIOT_COMPUTE_AVX512VNNI_B32);
    check_lookups_until("tl3_tq1_gemm_avx512vbmi", 16, 64, CIOT_COMPUTE_AVX512VNNI);
    /* the TL16 VNNI gemms: the AVX2 lookups below 5 rows, vpdpbusd zmm from there */
    check_lookups_until("tl16_gemm_avx512vnni", 4, 5, CIOT_COMPUTE_AVX512VNNI_B32);
    check_lookups_until("tl16_tq1_gemm_avx512vnni", 4, 5, CIOT_COMPUTE_AVX512VNNI);
    /* the AVX2 TL2 gemm: lookups below 8 rows, vpmaddubsw on decoded slices from there */
    check_lookups_until("tl2_gemm_avx2", 4, 8, CIOT_COMPUTE_AVX2_I16);
    /* the AVX-VNNI TL16 gemms: the AVX2 lookups below 12 rows, vpdpbusd ymm from there */
    check_lookups_until("tl16_gemm_avxvnni", 11, 12, CIOT_COMPUTE_AVXVNNI_B32);
    check_lookups_until("tl16_tq1_gemm_avxvnni", 11, 12, CIOT_COMPUTE_AVXVNNI);
#endif
    const ciot_kernel *k = ciot_kernel_find("tl2_gemm_avx512vnni");
    ciot_compute_family f;
    if (k) CHECK(ciot_roof_family(k, 4, &f, NULL) && f == CIOT_COMPUTE_AVX512VNNI && ciot_roof_family(k, 64, &f, NULL) &&
                     f == CIOT_COMPUTE_AVX512VNNI,
                 "tl2_gemm_avx512vnni: dot products on TL2 bytes, then on its decoded slices, bounded by vpdpbusd zmm");
    /* every probe family of kernels/isa.def is the roof of the kernels that declare its mac */
#define MAP(id, suffix, family, instruction) {CIOT_MAC_##family, CIOT_COMPUTE_##family},
#define MAP_ROW(id, word, suffix, flags, needs, probe, detect) CIOT_ISA_PROBE(MAP, id, suffix, probe)
    static const struct { ciot_mac mac; int family; } map[] = {
        {CIOT_MAC_SCALAR, -1}, {CIOT_MAC_LOOKUP, -1}, CIOT_ISA(MAP_ROW)};
#undef MAP_ROW
#undef MAP
    for (size_t i = 0; i < sizeof map / sizeof *map; i++) {
        const ciot_status st = ciot_compute_family_of(map[i].mac, &f);
        CHECK(map[i].family < 0 ? st == CIOT_E_UNKNOWN : st == CIOT_OK && (int)f == map[i].family,
              "mac %d -> family %d (status %d)", (int)map[i].mac, map[i].family, (int)st);
    }
}

/* The compute sample bench takes per repetition: sized once, then one timed job. */
static void test_sample(void) {
    for (int f = 0; f < CIOT_COMPUTE_N_FAMILIES; f++) {
        ciot_pool_opts o = {.threads = 1};
        ciot_pool *p;
        if (ciot_pool_create(CIOT_POOL_PERSISTENT, &o, &p) != CIOT_OK) {
            CHECK(0, "a pool of 1 thread");
            return;
        }
        uint64_t iters = 0;
        double gmacs = 0;
        const char *name = ciot_compute_family_name((ciot_compute_family)f);
        if (!ciot_compute_available((ciot_compute_family)f)) {
            CHECK(ciot_compute_size(p, (ciot_compute_family)f, 0.005, &iters) == CIOT_E_CPU &&
                      ciot_compute_sample(p, (ciot_compute_family)f, 1000, &gmacs) == CIOT_E_CPU,
                  "%s: not on this CPU, CIOT_E_CPU", name);
            SKIP("%s: a compute sample (this CPU or build lacks it)", name);
        } else {
            CHECK(ciot_compute_size(p, (ciot_compute_family)f, 0.005, &iters) == CIOT_OK && iters > 0,
                  "%s: sized for 5 ms", name);
            CHECK(ciot_compute_sample(p, (ciot_compute_family)f, iters, &gmacs) == CIOT_OK && gmacs > 0.01 &&
                      gmacs < 1e5,
                  "%s: one sample is a rate in GMAC/s (%g)", name, gmacs);
            CHECK(ciot_compute_sample(p, (ciot_compute_family)f, 0, &gmacs) == CIOT_E_ARG, "%s: 0 iterations refused",
                  name);
        }
        ciot_pool_destroy(p);
    }
}

int main(void) {
    test_bound();
    test_families();
    test_sample();
    printf("%d passed, %d failed, %d skipped\n", check_passed, check_failed, check_skipped);
    return check_failed != 0;
}
