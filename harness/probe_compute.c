/* The compute probe: the table of instruction families, the per-thread task on the pool, and the
 * timing of repetitions into min / median / max GMAC/s. */
#include "probe_compute.h"

#include <stdlib.h>
#include <string.h>
#include "compute_loops.h"
#include "cpu.h"

typedef struct {
    const char *name;
    const char *instruction;
} family_desc;

static const family_desc families[CIOT_COMPUTE_N_FAMILIES] = {
    [CIOT_COMPUTE_AVX2] = {"avx2", "vpmaddubsw + vpmaddwd + vpaddd ymm"},
    [CIOT_COMPUTE_AVXVNNI] = {"avxvnni", "vpdpbusd ymm (VEX)"},
    [CIOT_COMPUTE_AVX512VNNI] = {"avx512vnni", "vpdpbusd zmm"},
    [CIOT_COMPUTE_NEONDOT] = {"neondot", "sdot (vdotq_s32)"},
    [CIOT_COMPUTE_I8MM] = {"i8mm", "smmla (vmmlaq_s32)"},
};

typedef struct {
    int (*has)(void);
    ciot_compute_loop loop;
    const int *macs_per_iter;
} family_impl;

/* The loops this architecture is built with; the other entries stay empty. */
static const family_impl impls[CIOT_COMPUTE_N_FAMILIES] = {
#if defined(__x86_64__)
    [CIOT_COMPUTE_AVX2] = {ciot_cpu_has_avx2, ciot_compute_loop_avx2, &ciot_compute_macs_avx2},
    [CIOT_COMPUTE_AVXVNNI] = {ciot_cpu_has_avxvnni, ciot_compute_loop_avxvnni, &ciot_compute_macs_avxvnni},
    [CIOT_COMPUTE_AVX512VNNI] = {ciot_cpu_has_avx512vnni, ciot_compute_loop_avx512vnni,
                                 &ciot_compute_macs_avx512vnni},
#endif
#if defined(__aarch64__)
    [CIOT_COMPUTE_NEONDOT] = {ciot_cpu_has_dotprod, ciot_compute_loop_neondot, &ciot_compute_macs_neondot},
    [CIOT_COMPUTE_I8MM] = {ciot_cpu_has_i8mm, ciot_compute_loop_i8mm, &ciot_compute_macs_i8mm},
#endif
};

const char *ciot_compute_family_name(ciot_compute_family f) {
    return (unsigned)f < CIOT_COMPUTE_N_FAMILIES ? families[f].name : "unknown";
}

const char *ciot_compute_instruction(ciot_compute_family f) {
    return (unsigned)f < CIOT_COMPUTE_N_FAMILIES ? families[f].instruction : "unknown";
}

ciot_status ciot_compute_family_parse(const char *name, ciot_compute_family *out) {
    for (int f = 0; f < CIOT_COMPUTE_N_FAMILIES; f++)
        if (name && !strcmp(name, families[f].name)) {
            *out = (ciot_compute_family)f;
            return CIOT_OK;
        }
    return CIOT_E_UNKNOWN;
}

int ciot_compute_available(ciot_compute_family f) {
    if ((unsigned)f >= CIOT_COMPUTE_N_FAMILIES) return 0;
    return impls[f].has && impls[f].loop && impls[f].has();
}

typedef struct {
    _Alignas(64) uint64_t value;    /* one checksum per thread, on its own line */
} padded_sink;

typedef struct {
    ciot_compute_loop loop;
    uint64_t iters;
    padded_sink *sink;
} compute_job;

static void compute_task(void *arg, int t, int n) {
    compute_job *j = arg;
    j->sink[t].value = j->loop(j->iters);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

ciot_status ciot_compute_measure(ciot_pool *p, ciot_compute_family f, double seconds_per_rep, int reps,
                                 ciot_compute_result *out) {
    if (!p || !out || reps < 1 || !(seconds_per_rep > 0) || (unsigned)f >= CIOT_COMPUTE_N_FAMILIES)
        return CIOT_E_ARG;
    if (!ciot_compute_available(f)) return CIOT_E_CPU;
    const family_impl *d = &impls[f];
    int n = ciot_pool_threads(p);
    padded_sink *sink = aligned_alloc(64, (size_t)n * sizeof *sink);
    double *rates = malloc((size_t)reps * sizeof *rates);
    if (!sink || !rates) {
        free(sink);
        free(rates);
        return CIOT_E_NOMEM;
    }
    compute_job j = {.loop = d->loop, .iters = 1024, .sink = sink};

    /* Warm-up: double the iterations until a job lasts 5 ms (wakes the cores and the wide units),
     * then scale to the requested duration. */
    uint64_t dt = 0, target = (uint64_t)(seconds_per_rep * 1e9);
    for (;;) {
        uint64_t t0 = ciot_now_ns();
        ciot_pool_run(p, compute_task, &j);
        dt = ciot_now_ns() - t0;
        if (dt >= 5000000 || j.iters >= ((uint64_t)1 << 40)) break;
        j.iters *= 2;
    }
    double scaled = (double)j.iters * (double)target / (double)(dt ? dt : 1);
    j.iters = scaled < 1 ? 1 : (uint64_t)scaled;

    double macs = (double)j.iters * (double)*d->macs_per_iter * n;
    for (int r = 0; r < reps; r++) {
        uint64_t t0 = ciot_now_ns();
        ciot_pool_run(p, compute_task, &j);
        dt = ciot_now_ns() - t0;
        rates[r] = macs / (double)(dt ? dt : 1); /* MACs per ns = GMAC/s */
    }
    qsort(rates, (size_t)reps, sizeof *rates, cmp_double);
    *out = (ciot_compute_result){
        .family = f, .threads = n, .reps = reps, .iters = j.iters, .macs_per_iter = *d->macs_per_iter,
        .min_gmacs = rates[0], .max_gmacs = rates[reps - 1],
        .median_gmacs = reps % 2 ? rates[reps / 2] : (rates[reps / 2 - 1] + rates[reps / 2]) / 2,
    };
    free(sink);
    free(rates);
    return CIOT_OK;
}
