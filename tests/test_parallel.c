/* Tests of harness/measure/parallel.c, the one loop bench and the replay run a kernel through: both splits
 * compute every tile exactly once on every thread count, the prologue runs once per thread on that thread's
 * own copy of the call, the straggler alone is delayed and records its delay (also a thread given no chunk),
 * and the pool's shared quantization is bit-identical to the format's quantizer run alone.
 * Prints one line per failure and ends with "N passed, M failed". */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parallel.h"

static int passed, failed;

#define CHECK(ok, ...)                \
    do {                              \
        if (ok) {                     \
            passed++;                 \
        } else {                      \
            failed++;                 \
            printf("FAIL ");          \
            printf(__VA_ARGS__);      \
            printf("\n");             \
        }                             \
    } while (0)

enum { MAX_TILES = 1000, MAX_THREADS = 8 };
static atomic_int seen[MAX_TILES];
static atomic_int calls, own_calls;    /* compute calls, and those that saw the x their thread's prologue set */
static int prologues[MAX_THREADS];
static const int thread_tag[MAX_THREADS] = {0, 1, 2, 3, 4, 5, 6, 7};

/* A fake kernel: counts every tile it is given, and checks the x its thread's prologue set, when set. */
static void count_tiles(const ciot_mm *mm, int first, int count) {
    for (int i = first; i < first + count; i++) atomic_fetch_add(&seen[i], 1);
    atomic_fetch_add(&calls, 1);
    if (mm->x && mm->ldy >= 0 && mm->ldy < MAX_THREADS && mm->x == (const void *)&thread_tag[mm->ldy])
        atomic_fetch_add(&own_calls, 1);
}
static const ciot_layout rows4 = {.name = "test4", .tile_rows = 4};
static const ciot_kernel fake = {.name = "count_tiles", .layout = &rows4, .compute = count_tiles};

/* The prologue: the thread's own x, and its thread number where count_tiles finds it. */
static void own_x(void *arg, int t, ciot_mm *mm) {
    (void)arg;
    prologues[t]++;
    mm->x = &thread_tag[t];
    mm->ldy = t;
}

static void splits(ciot_pool *p, int threads, ciot_split_mode mode, int with_prologue) {
    static const int tiles_of[] = {0, 1, 3, 7, 64, MAX_TILES};
    for (size_t c = 0; c < sizeof tiles_of / sizeof tiles_of[0]; c++) {
        const int tiles = tiles_of[c];
        for (int i = 0; i < MAX_TILES; i++) atomic_store(&seen[i], 0);
        memset(prologues, 0, sizeof prologues);
        atomic_store(&calls, 0), atomic_store(&own_calls, 0);
        const ciot_mm mm = {.rows = tiles * 4, .K = 256, .batch = 1, .ldy = 0};
        ciot_parallel_hooks h = {.prologue = own_x};
        ciot_run_parallel(p, &fake, &mm, mode, 3, with_prologue ? &h : NULL);
        int once = 1, extra = 0, pro = 1;
        for (int i = 0; i < tiles; i++) once &= atomic_load(&seen[i]) == 1;
        for (int i = tiles; i < MAX_TILES; i++) extra |= atomic_load(&seen[i]) != 0;
        for (int t = 0; t < threads; t++) pro &= prologues[t] == (with_prologue ? 1 : 0);
        const char *m = mode == CIOT_SPLIT_STATIC ? "static" : "chunks";
        CHECK(once && !extra, "%s, %d threads, %d tiles: every tile exactly once", m, threads, tiles);
        CHECK(pro, "%s, %d threads, %d tiles: the prologue ran %s on every thread", m, threads, tiles,
              with_prologue ? "once" : "never");
        CHECK(atomic_load(&own_calls) == (with_prologue ? atomic_load(&calls) : 0), "%s, %d threads, %d tiles: %d of %d "
              "computes saw their thread's own x (%s)", m, threads, tiles, atomic_load(&own_calls), atomic_load(&calls),
              with_prologue ? "all expected" : "none expected");
    }
}

/* The straggler is delayed at every call and records it; the other threads are not (their calls end long
 * before the delay would); with chunks, a straggler that gets no chunk is delayed all the same. */
static void straggler(ciot_pool *p, ciot_split_mode mode, int tiles) {
    const ciot_mm mm = {.rows = tiles * 4, .K = 256, .batch = 1};
    const char *m = mode == CIOT_SPLIT_STATIC ? "static" : "chunks";
    ciot_pool_set_timing(p, 1);
    /* thread 0's few fake tiles take microseconds: a few tries keep a preempted one from failing the check */
    int recorded = 0, apart = 0;
    uint64_t injected = 0, busy0 = 0, busy1 = 0;
    for (int attempt = 0; attempt < 5 && !(recorded && apart); attempt++) {
        injected = 0;
        ciot_parallel_hooks h = {.straggler = 1, .straggler_us = 2000, .injected_ns = &injected};
        ciot_run_parallel(p, &fake, &mm, mode, 1, &h);
        const ciot_span *sp = ciot_pool_spans(p);
        busy0 = sp[0].end_ns - sp[0].start_ns, busy1 = sp[1].end_ns - sp[1].start_ns;
        recorded = injected >= 2000000 && busy1 >= injected;
        apart = busy0 < 1000000;
    }
    CHECK(recorded, "%s, %d tiles: the straggler's delay is recorded inside its work (%llu ns, busy %llu ns)", m,
          tiles, (unsigned long long)injected, (unsigned long long)busy1);
    CHECK(apart, "%s, %d tiles: thread 0 is not delayed (busy %llu ns)", m, tiles, (unsigned long long)busy0);
    injected = 0;
    ciot_parallel_hooks off = {.straggler = 1, .injected_ns = &injected};
    ciot_run_parallel(p, &fake, &mm, mode, 1, &off);
    CHECK(injected == 0, "%s: no delay when straggler_us is 0 (%llu ns)", m, (unsigned long long)injected);
}

/* ciot_quantize_parallel's buffer, byte for byte, against the quantizer over the whole batch at once. */
static void quantize(ciot_pool *p, const ciot_act_format *a, int batch, int K) {
    float *x = malloc((size_t)batch * (size_t)K * sizeof *x);
    const size_t bytes = ciot_act_bytes(a, batch, K);
    unsigned char *want = calloc(1, bytes), *got = calloc(1, bytes);
    for (size_t i = 0; i < (size_t)batch * (size_t)K; i++) x[i] = (float)((int)((i * 2654435761u) % 2001) - 1000) * 1e-3f;
    a->quantize(x, want, batch, K);
    ciot_quantize_parallel(p, a, x, got, batch, K);
    CHECK(!memcmp(want, got, bytes), "%s, batch %d, K %d: the pool's quantization is the quantizer's", a->name, batch,
          K);
    free(x), free(want), free(got);
}

int main(void) {
    for (int threads = 1; threads <= MAX_THREADS; threads++) {
        ciot_pool *p;
        ciot_pool_opts o = {.threads = threads};
        if (ciot_pool_create(CIOT_POOL_PERSISTENT, &o, &p) != CIOT_OK) {
            CHECK(0, "a pool of %d threads", threads);
            continue;
        }
        for (int pro = 0; pro < 2; pro++) {
            splits(p, threads, CIOT_SPLIT_STATIC, pro);
            splits(p, threads, CIOT_SPLIT_CHUNKS, pro);
        }
        if (threads == 2) {
            straggler(p, CIOT_SPLIT_STATIC, 64);
            straggler(p, CIOT_SPLIT_CHUNKS, 64);
            straggler(p, CIOT_SPLIT_CHUNKS, 0);   /* no chunk for anyone */
        }
        quantize(p, &ciot_act_q8_K, 1, 1024);
        quantize(p, &ciot_act_q8_K, 3, 512);
        quantize(p, &ciot_act_q8_Kx4, 5, 512);
        quantize(p, &ciot_act_q8_0, 2, 96);
        ciot_pool_destroy(p);
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
