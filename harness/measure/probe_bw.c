/* The DRAM bandwidth probe: the portable inner loops, the choice of loop for this CPU, the per-thread
 * task on the pool, and the timing of repetitions into min / median / max rates. */
#include "probe_bw.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "bigbuf.h"
#include "bw_loops.h"
#include "cpu.h"
#include "os.h"
#include "split.h"
#include "stats.h"

enum { PAGE = 4096 };                           /* the unit threads split the buffer by */
static const double DEFAULT_MIN_REP_SECONDS = 0.05;
_Static_assert(CIOT_BW_STREAMS == 4, "CIOT_BW_PLANS_TEXT (probe_bw.h) names 4 streams");

/* ---- portable loops (the _generic twins of the ISA loops) ---- */

/* An empty asm that claims to read memory: keeps the compiler from turning the loops into
 * memset / memcpy, whose large-size paths use non-temporal stores and so change the traffic. */
#if defined(__GNUC__)
#define OPAQUE(p) __asm__ __volatile__("" : : "r"(p) : "memory")
#else
#define OPAQUE(p) ((void)(p))
#endif

uint64_t ciot_bw_read_generic(const void *src, size_t bytes, size_t ahead, int streams) {
    uint64_t a[8] = {0};
    CIOT_BW_EACH_BLOCK(at, bytes, streams) {
        const uint64_t *p = (const uint64_t *)((const char *)src + at);
        for (size_t i = 0; i < CIOT_BW_BLOCK / sizeof *p; i += 8) {
            ciot_prefetch(p + i, 64, ahead); /* the kernels' policy (kernels/prefetch.h), one line per step */
            for (int k = 0; k < 8; k++) a[k] += p[i + k];
        }
    }
    return a[0] + a[1] + a[2] + a[3] + a[4] + a[5] + a[6] + a[7];
}

void ciot_bw_write_generic(void *dst, size_t bytes, uint64_t value) {
    uint64_t *p = dst;
    for (size_t i = 0; i < bytes / sizeof *p; i += CIOT_BW_BLOCK / sizeof *p) {
        for (size_t k = 0; k < CIOT_BW_BLOCK / sizeof *p; k++) p[i + k] = value;
        OPAQUE(p + i);
    }
}

void ciot_bw_copy_generic(void *dst, const void *src, size_t bytes) {
    uint64_t *d = dst;
    const uint64_t *s = src;
    for (size_t i = 0; i < bytes / sizeof *d; i += CIOT_BW_BLOCK / sizeof *d) {
        for (size_t k = 0; k < CIOT_BW_BLOCK / sizeof *d; k++) d[i + k] = s[i + k];
        OPAQUE(d + i);
    }
}

/* clang's portable non-temporal store (x86 MOVNTI, aarch64 STNP); a compiler without it stores plainly, and
 * ciot_bw_traffic says so. */
#if defined(__has_builtin)
#if __has_builtin(__builtin_nontemporal_store)
#define NT_STORE(v, p) __builtin_nontemporal_store(v, p)
#endif
#endif
#if !defined(NT_STORE)
#define NT_STORE(v, p) (*(p) = (v))
#define NT_PLAIN 1
#else
#define NT_PLAIN 0
#endif

void ciot_bw_copy_nt_generic(void *dst, const void *src, size_t bytes, int streams) {
    CIOT_BW_EACH_BLOCK(at, bytes, streams) {
        uint64_t *d = (uint64_t *)((char *)dst + at);
        const uint64_t *s = (const uint64_t *)((const char *)src + at);
        for (size_t k = 0; k < CIOT_BW_BLOCK / sizeof *d; k++) NT_STORE(s[k], &d[k]);
        OPAQUE(d);
    }
#if defined(__x86_64__) && !NT_PLAIN
    __asm__ __volatile__("sfence" ::: "memory"); /* the streamed lines are in memory before the pass ends */
#endif
}

void ciot_bw_update_generic(void *buf, size_t bytes, uint64_t value, size_t ahead, int streams) {
    CIOT_BW_EACH_BLOCK(at, bytes, streams) {
        uint64_t *p = (uint64_t *)((char *)buf + at);
        ciot_prefetch(p, CIOT_BW_BLOCK, ahead);
        for (size_t k = 0; k < CIOT_BW_BLOCK / sizeof *p; k++) p[k] += value;
        OPAQUE(p);
    }
}

/* ---- which loop this CPU runs ---- */

typedef struct {
    const char *name;
    int (*available)(void);
    ciot_bw_read_fn read;
    ciot_bw_write_fn write;
    ciot_bw_copy_fn copy;
    ciot_bw_update_fn update;
    ciot_bw_copy_nt_fn copy_nt;
} bw_impl;

static int always(void) { return 1; }

/* Best first; the first one the CPU has is used. */
static const bw_impl impls[] = {
#if defined(__x86_64__)
    {"avx2", ciot_cpu_has_avx2, ciot_bw_read_avx2, ciot_bw_write_avx2, ciot_bw_copy_avx2,
     ciot_bw_update_avx2, ciot_bw_copy_nt_avx2},
#endif
#if defined(__aarch64__)
    {"neon", ciot_cpu_has_neon, ciot_bw_read_neon, ciot_bw_write_neon, ciot_bw_copy_neon,
     ciot_bw_update_neon, ciot_bw_copy_nt_neon},
#endif
    {"generic", always, ciot_bw_read_generic, ciot_bw_write_generic, ciot_bw_copy_generic,
     ciot_bw_update_generic, ciot_bw_copy_nt_generic},
};

static const bw_impl *pick_impl(void) {
    for (size_t i = 0; i < sizeof impls / sizeof impls[0]; i++)
        if (impls[i].available()) return &impls[i];
    return &impls[sizeof impls / sizeof impls[0] - 1];
}

const char *ciot_bw_impl_name(void) { return pick_impl()->name; }

/* ---- names ---- */

static const char *const kind_names[CIOT_BW_N_KINDS] = {"read", "write", "copy", "update", "copy_nt"};
static const char *const traffic_labels[CIOT_BW_N_KINDS] = {
    "read (loads only)",
    "write (stores; + write-allocate reads not counted)",
    "copy (loads + stores; + write-allocate reads not counted)",
    "update (loads + stores of the same lines, in place: no write-allocate)",
#if NT_PLAIN
    "copy_nt (loads + stores, plain here: + write-allocate reads not counted)",
#else
    "copy_nt (loads + non-temporal stores: no write-allocate)",
#endif
};

const char *ciot_bw_kind_name(ciot_bw_kind kind) {
    return (unsigned)kind < CIOT_BW_N_KINDS ? kind_names[kind] : "unknown";
}

const char *ciot_bw_traffic(ciot_bw_kind kind) {
    return (unsigned)kind < CIOT_BW_N_KINDS ? traffic_labels[kind] : "unknown";
}

ciot_status ciot_bw_kind_parse(const char *name, ciot_bw_kind *out) {
    for (int k = 0; k < CIOT_BW_N_KINDS; k++)
        if (name && !strcmp(name, kind_names[k])) {
            *out = (ciot_bw_kind)k;
            return CIOT_OK;
        }
    return CIOT_E_UNKNOWN;
}

/* ---- the task every thread runs ---- */

typedef struct {
    _Alignas(64) uint64_t value;    /* one reduced value per thread, on its own line */
} padded_sink;

typedef struct {
    const bw_impl *impl;
    ciot_bw_kind kind;
    char *src, *dst;                /* dst only for the copies */
    int pages;                      /* pages split among the threads */
    int passes;
    size_t prefetch;                /* read, update: software prefetch distance (0: none) */
    int streams;                    /* read, update, copy_nt: parts of each thread's slice side by side */
    padded_sink *sink;
} bw_job;

static void bw_task(void *arg, int t, int n) {
    bw_job *j = arg;
    int first, count;
    ciot_split_static(j->pages, t, n, &first, &count);
    size_t off = (size_t)first * PAGE, len = (size_t)count * PAGE;
    uint64_t acc = 0;
    if (len == 0) return;
    for (int pass = 0; pass < j->passes; pass++) {
        switch (j->kind) {
        case CIOT_BW_READ: acc += j->impl->read(j->src + off, len, j->prefetch, j->streams); break;
        case CIOT_BW_WRITE: j->impl->write(j->src + off, len, (uint64_t)pass); break;
        case CIOT_BW_COPY: j->impl->copy(j->dst + off, j->src + off, len); break;
        case CIOT_BW_UPDATE: j->impl->update(j->src + off, len, (uint64_t)pass | 1, j->prefetch, j->streams); break;
        case CIOT_BW_COPY_NT: j->impl->copy_nt(j->dst + off, j->src + off, len, j->streams); break;
        }
    }
    j->sink[t].value = acc;
}

static void touch_task(void *arg, int t, int n) {
    bw_job *j = arg;
    int first, count;
    ciot_split_static(j->pages, t, n, &first, &count);
    for (int i = first; i < first + count; i++) j->src[(size_t)i * PAGE] = 0;
}

ciot_status ciot_bw_buffer_alloc(ciot_pool *p, size_t bytes, int huge, void **out) {
    if (!p || !out || bytes < PAGE) return CIOT_E_ARG;
    *out = ciot_bigbuf_alloc(bytes, huge);
    if (!*out) return CIOT_E_NOMEM;
    bw_job j = {.src = *out, .pages = (int)(bytes / PAGE)};
    ciot_pool_run(p, touch_task, &j);
    return CIOT_OK;
}

void ciot_bw_buffer_free(void *buf, size_t bytes) { ciot_bigbuf_free(buf, bytes); }

static int is_copy(ciot_bw_kind kind) { return kind == CIOT_BW_COPY || kind == CIOT_BW_COPY_NT; }
/* The kinds whose kernels follow the prefetch policy: read (the matvecs' weights) and update (DeltaNet's
 * state rows). The copies' op (state_copy) issues no software prefetch, so neither do their probes. */
static int has_prefetch(ciot_bw_kind kind) { return kind == CIOT_BW_READ || kind == CIOT_BW_UPDATE; }
/* The kinds whose samples also run in CIOT_BW_STREAMS streams (policy_rate): all but the plain write and
 * copy, the rulers of no op that streams (a plain copy is the reference state copy's memcpy). */
static int has_streams(ciot_bw_kind kind) { return has_prefetch(kind) || kind == CIOT_BW_COPY_NT; }

/* The job for `passes` passes of kind over the first bytes of buf (rounded down to whole pages per
 * half for the copies) and the traffic one pass declares; CIOT_E_ARG when not even one page fits. */
static ciot_status make_job(ciot_bw_kind kind, void *buf, size_t bytes, size_t prefetch, padded_sink *sink,
                            bw_job *j, size_t *per_pass) {
    size_t span = is_copy(kind) ? bytes / 2 : bytes;
    size_t pages = span / PAGE;
    if (pages < 1 || pages > (size_t)INT32_MAX) return CIOT_E_ARG;
    *j = (bw_job){.impl = pick_impl(), .kind = kind, .src = buf, .dst = (char *)buf + pages * PAGE,
                  .pages = (int)pages, .passes = 1, .prefetch = has_prefetch(kind) ? prefetch : 0, .streams = 1,
                  .sink = sink};
    /* Declared traffic per pass: a copy moves its bytes twice (read + store), an update reads and writes back
     * each of its own; write-allocate not counted. */
    *per_pass = pages * PAGE * (is_copy(kind) || kind == CIOT_BW_UPDATE ? 2 : 1);
    return CIOT_OK;
}

static uint64_t timed_run(ciot_pool *p, bw_job *j) {
    const uint64_t t0 = ciot_now_ns();
    ciot_pool_run(p, bw_task, j);
    const uint64_t dt = ciot_now_ns() - t0;
    return dt ? dt : 1;
}

/* GB/s of job j: its passes timed as one run, repeated (whole runs) until they last min_seconds; the runs
 * into *runs. */
static double read_rate(ciot_pool *p, bw_job *j, size_t per_pass, double min_seconds, int *runs) {
    uint64_t ns = 0;
    int n = 0;
    do ns += timed_run(p, j), n++;
    while ((double)ns < min_seconds * 1e9 && n < (1 << 20));
    if (runs) *runs = n;
    return (double)per_pass * j->passes * n / (double)ns; /* B/ns = GB/s */
}

/* The rate under the policy: a read or update runs in every plan of {one stream, CIOT_BW_STREAMS streams} x
 * {the policy's prefetch distance, no software prefetch}, a copy_nt in both stream counts, and the fastest
 * run counts (its runs into *runs). So neither a prefetch that slows a pure stream (x86 prefetcht2) nor one
 * sequential stream keeping fewer lines in flight than a kernel's rows side by side (bw_loops.h) lowers the
 * ceiling kernels are compared with. */
static double policy_rate(ciot_pool *p, const bw_job *j, size_t per_pass, double min_seconds, int *runs) {
    bw_job run = *j;
    double best = read_rate(p, &run, per_pass, min_seconds, runs);
    if (!has_streams(j->kind)) return best;
    static const int streams[] = {1, CIOT_BW_STREAMS};
    for (int s = 0; s < 2; s++)
        for (int pf = 0; pf < (j->prefetch ? 2 : 1); pf++) {
            if (s == 0 && pf == 0) continue; /* the plan measured above */
            run.streams = streams[s];
            run.prefetch = pf ? 0 : j->prefetch;
            int n;
            const double gbs = read_rate(p, &run, per_pass, min_seconds, &n);
            if (gbs > best) {
                best = gbs;
                if (runs) *runs = n;
            }
        }
    return best;
}

ciot_status ciot_bw_measure(ciot_pool *p, ciot_bw_kind kind, void *buf, size_t bytes, int reps,
                            ciot_bw_result *out) {
    return ciot_bw_measure_for(p, kind, buf, bytes, reps, DEFAULT_MIN_REP_SECONDS, 0, out);
}

ciot_status ciot_bw_measure_for(ciot_pool *p, ciot_bw_kind kind, void *buf, size_t bytes, int reps,
                                double min_rep_seconds, size_t prefetch, ciot_bw_result *out) {
    if (!p || !buf || !out || reps < 1 || (unsigned)kind >= CIOT_BW_N_KINDS || !(min_rep_seconds >= 0))
        return CIOT_E_ARG;
    const int n = ciot_pool_threads(p);
    padded_sink *sink = ciot_os_aligned_alloc(64, (size_t)n * sizeof *sink);
    double *rates = malloc((size_t)reps * sizeof *rates);
    bw_job j;
    size_t per_pass;
    ciot_status st = sink && rates ? make_job(kind, buf, bytes, prefetch, sink, &j, &per_pass) : CIOT_E_NOMEM;
    if (st != CIOT_OK) {
        ciot_os_aligned_free(sink);
        free(rates);
        return st;
    }
    /* Warm-up pass (faults pages in, wakes the workers), which also sizes a repetition. */
    const double passes = ceil(min_rep_seconds * 1e9 / (double)timed_run(p, &j));
    j.passes = passes < 1 ? 1 : passes > (1 << 20) ? 1 << 20 : (int)passes;
    for (int r = 0; r < reps; r++) rates[r] = policy_rate(p, &j, per_pass, 0, NULL); /* one run of j.passes */
    const ciot_spread s = ciot_spread_sort(rates, reps);
    *out = (ciot_bw_result){
        .kind = kind, .threads = n, .reps = reps, .passes = j.passes, .bytes_per_pass = per_pass,
        .min_gbs = s.min, .median_gbs = s.median, .max_gbs = s.max,
        .impl = j.impl->name, .traffic = ciot_bw_traffic(kind), .prefetch = j.prefetch,
    };
    ciot_os_aligned_free(sink);
    free(rates);
    return CIOT_OK;
}

ciot_status ciot_bw_sample(ciot_pool *p, void *buf, size_t bytes, double min_seconds, size_t prefetch,
                           double *gbs, int *passes) {
    return ciot_bw_sample_kind(p, CIOT_BW_READ, buf, bytes, min_seconds, prefetch, gbs, passes);
}

ciot_status ciot_bw_sample_kind(ciot_pool *p, ciot_bw_kind kind, void *buf, size_t bytes, double min_seconds,
                                size_t prefetch, double *gbs, int *passes) {
    if (!p || !buf || !gbs || !(min_seconds >= 0) || (unsigned)kind >= CIOT_BW_N_KINDS) return CIOT_E_ARG;
    padded_sink *sink = ciot_os_aligned_alloc(64, (size_t)ciot_pool_threads(p) * sizeof *sink);
    bw_job j;
    size_t per_pass;
    ciot_status st = sink ? make_job(kind, buf, bytes, prefetch, sink, &j, &per_pass) : CIOT_E_NOMEM;
    if (st == CIOT_OK) *gbs = policy_rate(p, &j, per_pass, min_seconds, passes); /* j.passes is 1 */
    ciot_os_aligned_free(sink);
    return st;
}
