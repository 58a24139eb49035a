/* Tests of pools/: both splits compute every unit exactly once on both pool kinds for 1..64 threads,
 * oversubscribed pools finish promptly, create/destroy repeats cleanly, spans and timing-off behave, and
 * pool threads leave SIGINT, SIGTERM and SIGHUP to the caller.
 * Prints one line per failure and ends with "N passed, M failed". */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "pool.h"
#include "split.h"

static int passed, failed;

static void check(int ok, const char *what, long long expected, long long actual) {
    if (ok) {
        passed++;
        return;
    }
    failed++;
    printf("FAIL %s: expected %lld, got %lld\n", what, expected, actual);
}

#define CHECK_EQ(what, expected, actual) \
    do { long long e_ = (expected), a_ = (actual); check(e_ == a_, what, e_, a_); } while (0)

static const char *kind_name(ciot_pool_kind k) { return k == CIOT_POOL_PERSISTENT ? "persistent" : "spawn"; }

/* ---- the splits alone ---- */

static const int unit_counts[] = {0, 1, 7, 64, 1000, 4099};
enum { N_UNIT_COUNTS = sizeof unit_counts / sizeof unit_counts[0], MAX_THREADS = 64 };

static void test_split_static(void) {
    static int seen[4099];
    char what[128];
    for (int u = 0; u < N_UNIT_COUNTS; u++) {
        int units = unit_counts[u];
        for (int n = 1; n <= MAX_THREADS; n++) {
            memset(seen, 0, sizeof seen);
            int next = 0, bad_order = 0, lo = units, hi = 0;
            for (int t = 0; t < n; t++) {
                int first, count;
                ciot_split_static(units, t, n, &first, &count);
                if (first != next) bad_order = 1;
                next = first + count;
                if (count < lo) lo = count;
                if (count > hi) hi = count;
                for (int i = first; i < first + count && i < units; i++) seen[i]++;
            }
            int wrong = 0;
            for (int i = 0; i < units; i++) wrong += seen[i] != 1;
            snprintf(what, sizeof what, "static split units=%d n=%d: units not covered exactly once", units, n);
            CHECK_EQ(what, 0, wrong);
            snprintf(what, sizeof what, "static split units=%d n=%d: slices contiguous and in order", units, n);
            CHECK_EQ(what, 0, bad_order);
            snprintf(what, sizeof what, "static split units=%d n=%d: slice sizes differ by <= 1", units, n);
            check(hi - lo <= 1, what, 1, hi - lo);
        }
    }
    int first = -1, count = -1;
    ciot_split_static(10, 5, 5, &first, &count);
    CHECK_EQ("static split t >= n gives count 0", 0, count);
}

static void test_chunks_serial(void) {
    char what[128];
    static const int chunk_sizes[] = {0, 1, 3, 64, 5000};
    for (int u = 0; u < N_UNIT_COUNTS; u++)
        for (int c = 0; c < 5; c++) {
            ciot_chunks ch;
            ciot_chunks_init(&ch, unit_counts[u], chunk_sizes[c]);
            int first, count, covered = 0, next = 0, in_order = 1, calls = 0;
            while (ciot_chunks_next(&ch, &first, &count)) {
                if (first != next || count < 1) in_order = 0;
                next = first + count;
                covered += count;
                if (++calls > 10000) break;
            }
            snprintf(what, sizeof what, "chunks units=%d chunk=%d: units covered", unit_counts[u], chunk_sizes[c]);
            CHECK_EQ(what, unit_counts[u], covered);
            snprintf(what, sizeof what, "chunks units=%d chunk=%d: in order, none empty", unit_counts[u],
                     chunk_sizes[c]);
            CHECK_EQ(what, 1, in_order);
            snprintf(what, sizeof what, "chunks units=%d chunk=%d: stays exhausted", unit_counts[u], chunk_sizes[c]);
            CHECK_EQ(what, 0, ciot_chunks_next(&ch, &first, &count));
        }
}

/* ---- splits on pools: a per-unit atomic counter proves exactly-once ---- */

typedef struct {
    atomic_int *hits;           /* per unit */
    atomic_int calls[MAX_THREADS];
    atomic_int wrong_n;
    int units;
    int chunked;
    ciot_chunks chunks;
} split_job;

static void split_task(void *arg, int t, int n) {
    split_job *j = arg;
    atomic_fetch_add(&j->calls[t], 1);
    if (n < 1 || t < 0 || t >= n) atomic_fetch_add(&j->wrong_n, 1);
    int first, count;
    if (!j->chunked) {
        ciot_split_static(j->units, t, n, &first, &count);
        for (int i = first; i < first + count; i++) atomic_fetch_add_explicit(&j->hits[i], 1, memory_order_relaxed);
        return;
    }
    while (ciot_chunks_next(&j->chunks, &first, &count))
        for (int i = first; i < first + count; i++) atomic_fetch_add_explicit(&j->hits[i], 1, memory_order_relaxed);
}

static void run_split_job(ciot_pool *p, split_job *j, int units, int chunk, const char *label) {
    int n = ciot_pool_threads(p);
    char what[160];
    j->units = units;
    j->chunked = chunk > 0;
    if (chunk > 0) ciot_chunks_init(&j->chunks, units, chunk);
    for (int i = 0; i < units; i++) atomic_store(&j->hits[i], 0);
    for (int t = 0; t < MAX_THREADS; t++) atomic_store(&j->calls[t], 0);
    atomic_store(&j->wrong_n, 0);
    ciot_pool_run(p, split_task, j);
    int wrong = 0;
    for (int i = 0; i < units; i++) wrong += atomic_load(&j->hits[i]) != 1;
    snprintf(what, sizeof what, "%s units=%d chunk=%d: units not computed exactly once", label, units, chunk);
    CHECK_EQ(what, 0, wrong);
    int bad_calls = 0;
    for (int t = 0; t < MAX_THREADS; t++) bad_calls += atomic_load(&j->calls[t]) != (t < n);
    snprintf(what, sizeof what, "%s units=%d chunk=%d: threads not called exactly once", label, units, chunk);
    CHECK_EQ(what, 0, bad_calls + atomic_load(&j->wrong_n));
}

static void test_pool_splits(ciot_pool_kind kind) {
    static const int chunk_sizes[] = {1, 3, 64};
    static atomic_int hits[4099];
    split_job *j = calloc(1, sizeof *j);
    j->hits = hits;
    for (int n = 1; n <= MAX_THREADS; n++) {
        /* Odd thread counts pinned, even ones not: both paths run. */
        ciot_pool_opts o = {.threads = n, .pin = n & 1};
        ciot_pool *p = NULL;
        char label[64];
        snprintf(label, sizeof label, "%s pool threads=%d", kind_name(kind), n);
        ciot_status st = ciot_pool_create(kind, &o, &p);
        CHECK_EQ(label, CIOT_OK, st);
        if (st != CIOT_OK) continue;
        CHECK_EQ("ciot_pool_threads", n, ciot_pool_threads(p));
        CHECK_EQ("ciot_pool_get_kind", kind, ciot_pool_get_kind(p));
        if (kind == CIOT_POOL_PERSISTENT) {
            for (int u = 0; u < N_UNIT_COUNTS; u++) {
                run_split_job(p, j, unit_counts[u], 0, label);
                for (int c = 0; c < 3; c++) run_split_job(p, j, unit_counts[u], chunk_sizes[c], label);
            }
        } else { /* every job creates n-1 threads: a rotating sample of the same cases keeps this short */
            run_split_job(p, j, unit_counts[n % N_UNIT_COUNTS], 0, label);
            run_split_job(p, j, unit_counts[(n + 3) % N_UNIT_COUNTS], chunk_sizes[n % 3], label);
        }
        ciot_pool_destroy(p);
    }
    free(j);
}

/* ---- behaviour ---- */

static void noop_task(void *arg, int t, int n) {
    atomic_int *count = arg;
    atomic_fetch_add_explicit(count, 1, memory_order_relaxed);
}

/* spin 0 is the pool's default; a large explicit spin shows the yield path still finishes. */
static void test_oversubscribed(ciot_pool_kind kind, int jobs, int spin) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int n = (int)(cores * 16 > MAX_THREADS ? cores * 16 : MAX_THREADS);
    ciot_pool_opts o = {.threads = n, .pin = 1, .spin = spin};
    ciot_pool *p;
    char what[128];
    snprintf(what, sizeof what, "%s pool with %d threads on %ld cores: create", kind_name(kind), n, cores);
    CHECK_EQ(what, CIOT_OK, ciot_pool_create(kind, &o, &p));
    atomic_int count = 0;
    uint64_t t0 = ciot_now_ns();
    for (int i = 0; i < jobs; i++) ciot_pool_run(p, noop_task, &count);
    double s = (double)(ciot_now_ns() - t0) / 1e9;
    ciot_pool_destroy(p);
    printf("info: %s pool, %d threads on %ld cores, spin %d: %d jobs in %.3f s\n", kind_name(kind), n, cores,
           spin, jobs, s);
    snprintf(what, sizeof what, "%s oversubscribed: every thread ran every job", kind_name(kind));
    CHECK_EQ(what, (long long)n * jobs, atomic_load(&count));
    snprintf(what, sizeof what, "%s oversubscribed: %d jobs finish within 10 s (ms)", kind_name(kind), jobs);
    check(s < 10.0, what, 10000, (long long)(s * 1000));
}

static void test_create_destroy(ciot_pool_kind kind, int times) {
    char what[128];
    int bad = 0, runs = 0;
    for (int i = 0; i < times; i++) {
        ciot_pool_opts o = {.threads = 1 + i % 5, .pin = i & 1};
        ciot_pool *p;
        if (ciot_pool_create(kind, &o, &p) != CIOT_OK) {
            bad++;
            continue;
        }
        atomic_int count = 0;
        if (i % 3 == 0) { /* some pools are destroyed without ever running a job */
            ciot_pool_run(p, noop_task, &count);
            runs += atomic_load(&count) != o.threads;
        }
        ciot_pool_destroy(p);
    }
    snprintf(what, sizeof what, "%s: %d create/destroy cycles, failures", kind_name(kind), times);
    CHECK_EQ(what, 0, bad);
    snprintf(what, sizeof what, "%s: %d create/destroy cycles, jobs with missing threads", kind_name(kind), times);
    CHECK_EQ(what, 0, runs);
}

static void busy_task(void *arg, int t, int n) {
    volatile unsigned sink = 0;
    for (unsigned i = 0; i < 20000; i++) sink = sink + i;
}

static void test_spans(ciot_pool_kind kind) {
    enum { N = 4 };
    char what[128];
    ciot_pool_opts o = {.threads = N, .pin = 1};
    ciot_pool *p;
    if (ciot_pool_create(kind, &o, &p) != CIOT_OK) {
        check(0, "spans: create", CIOT_OK, -1);
        return;
    }
    uint64_t before = ciot_now_ns();
    ciot_pool_run(p, busy_task, NULL);
    uint64_t after = ciot_now_ns();
    uint64_t js, je;
    ciot_pool_job_window(p, &js, &je);
    const ciot_span *s = ciot_pool_spans(p);
    int bad = 0;
    for (int t = 0; t < N; t++)
        bad += !(s[t].start_ns > 0 && s[t].end_ns >= s[t].start_ns && s[t].start_ns >= js && s[t].end_ns <= je);
    snprintf(what, sizeof what, "%s spans: threads with end < start or outside the job window", kind_name(kind));
    CHECK_EQ(what, 0, bad);
    snprintf(what, sizeof what, "%s spans: job window inside the caller's clock readings", kind_name(kind));
    check(js >= before && je <= after && je >= js, what, 1, 0);

    ciot_pool_set_timing(p, 0);
    ciot_pool_run(p, busy_task, NULL);
    s = ciot_pool_spans(p);
    ciot_pool_job_window(p, &js, &je);
    uint64_t nonzero = js | je;
    for (int t = 0; t < N; t++) nonzero |= s[t].start_ns | s[t].end_ns;
    snprintf(what, sizeof what, "%s timing off: spans and window read zero", kind_name(kind));
    CHECK_EQ(what, 0, nonzero != 0);

    ciot_pool_set_timing(p, 1);
    ciot_pool_run(p, busy_task, NULL);
    s = ciot_pool_spans(p);
    bad = 0;
    for (int t = 0; t < N; t++) bad += !(s[t].start_ns > 0 && s[t].end_ns >= s[t].start_ns);
    snprintf(what, sizeof what, "%s timing back on: spans recorded again (bad threads)", kind_name(kind));
    CHECK_EQ(what, 0, bad);
    ciot_pool_destroy(p);
}

static void test_bad_args(void) {
    ciot_pool *p = (ciot_pool *)&p;
    ciot_pool_opts o = {.threads = 0};
    CHECK_EQ("threads=0 is CIOT_E_ARG", CIOT_E_ARG, ciot_pool_create(CIOT_POOL_PERSISTENT, &o, &p));
    CHECK_EQ("failed create sets *out to NULL", 0, p != NULL);
    o.threads = -3;
    CHECK_EQ("threads<0 is CIOT_E_ARG (spawn)", CIOT_E_ARG, ciot_pool_create(CIOT_POOL_SPAWN, &o, &p));
    CHECK_EQ("NULL opts is CIOT_E_ARG", CIOT_E_ARG, ciot_pool_create(CIOT_POOL_PERSISTENT, NULL, &p));
    o.threads = 2;
    CHECK_EQ("unknown kind is CIOT_E_ARG", CIOT_E_ARG, ciot_pool_create((ciot_pool_kind)7, &o, &p));
}

static int own_nice(void) { return getpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid)); }

static void nice_task(void *arg, int t, int n) { ((int *)arg)[t] = own_nice(); }

static void test_priority_and_binding(ciot_pool_kind kind) {
    char what[160];
    cpu_set_t before, after;
    sched_getaffinity(0, sizeof before, &before);
    int nice_before = own_nice();
    ciot_pool_opts o = {.threads = 3, .pin = 1, .raise_priority = 1};
    ciot_pool *p;
    if (ciot_pool_create(kind, &o, &p) != CIOT_OK) {
        check(0, "priority: create", CIOT_OK, -1);
        return;
    }
    ciot_pool_info info;
    ciot_pool_get_info(p, &info);
    printf("info: %s pool: pinned=%d priority_raised=%d priority=\"%s\"\n", kind_name(kind), info.pinned,
           info.priority_raised, info.priority);
    snprintf(what, sizeof what, "%s info: threads", kind_name(kind));
    CHECK_EQ(what, 3, info.threads);
    /* what the pool says happened is what its threads run at: raised, every thread at nice -5 or
     * below; not raised, every thread where the caller was, and the message says why */
    int nice[3] = {99, 99, 99};
    ciot_pool_run(p, nice_task, nice);
    for (int t = 0; t < 3; t++) {
        snprintf(what, sizeof what, "%s thread %d runs at the priority info reports (%s)", kind_name(kind), t, info.priority);
        if (info.priority_raised) check(nice[t] <= -5, what, -5, nice[t]);
        else CHECK_EQ(what, nice_before, nice[t]);
    }
    snprintf(what, sizeof what, "%s info names the outcome: ok, already, or refused with a reason", kind_name(kind));
    check(info.priority_raised ? strstr(info.priority, ": ok") || strstr(info.priority, ": already")
                               : strstr(info.priority, "refused (") || strstr(info.priority, "could not read ("),
          what, 1, 0);
    atomic_int count = 0;
    ciot_pool_run(p, noop_task, &count);
    ciot_pool_destroy(p);
    sched_getaffinity(0, sizeof after, &after);
    snprintf(what, sizeof what, "%s destroy restores the caller's affinity", kind_name(kind));
    CHECK_EQ(what, 1, CPU_EQUAL(&before, &after));
    snprintf(what, sizeof what, "%s destroy restores the caller's nice value", kind_name(kind));
    CHECK_EQ(what, nice_before, own_nice());
}

/* SIGINT, SIGTERM and SIGHUP: the signals that stop a run (os/os.h). */
static void stop_signals(sigset_t *set) {
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
}

/* 1 in slot t when thread t has every stop signal blocked */
static void mask_task(void *arg, int t, int n) {
    sigset_t now, stop;
    pthread_sigmask(SIG_BLOCK, NULL, &now);
    stop_signals(&stop);
    int all = 1;
    for (int sig = 1; sig < NSIG; sig++) all &= !sigismember(&stop, sig) || sigismember(&now, sig);
    ((int *)arg)[t] = all;
}

/* The stop signals reach the caller only (harness/io/tmpfiles.h): every pool thread has them blocked, and
 * neither creating the pool nor running a job leaves them blocked in the caller. */
static void test_stop_signals(ciot_pool_kind kind) {
    char what[160];
    sigset_t before, after;
    pthread_sigmask(SIG_BLOCK, NULL, &before);
    ciot_pool_opts o = {.threads = 4};
    ciot_pool *p;
    if (ciot_pool_create(kind, &o, &p) != CIOT_OK) {
        check(0, "stop signals: create", CIOT_OK, -1);
        return;
    }
    int blocked[4] = {-1, -1, -1, -1};
    for (int job = 0; job < 2; job++) ciot_pool_run(p, mask_task, blocked);
    snprintf(what, sizeof what, "%s: the caller, thread 0, still takes the stop signals", kind_name(kind));
    CHECK_EQ(what, 0, blocked[0]);
    for (int t = 1; t < 4; t++) {
        snprintf(what, sizeof what, "%s: thread %d has the stop signals blocked", kind_name(kind), t);
        CHECK_EQ(what, 1, blocked[t]);
    }
    ciot_pool_destroy(p);
    pthread_sigmask(SIG_BLOCK, NULL, &after);
    int same = 1;
    for (int sig = 1; sig < NSIG; sig++) same &= sigismember(&before, sig) == sigismember(&after, sig);
    snprintf(what, sizeof what, "%s: the caller's signal mask is what it was", kind_name(kind));
    CHECK_EQ(what, 1, same);
}

static void test_clock(void) {
    uint64_t a = ciot_now_ns(), b = ciot_now_ns();
    CHECK_EQ("ciot_now_ns is monotonic and nonzero", 1, a > 0 && b >= a);
}

int main(void) {
    uint64_t t0 = ciot_now_ns();
    test_clock();
    test_bad_args();
    test_split_static();
    test_chunks_serial();
    for (int k = 0; k < 2; k++) {
        ciot_pool_kind kind = k ? CIOT_POOL_SPAWN : CIOT_POOL_PERSISTENT;
        uint64_t ts = ciot_now_ns();
        test_pool_splits(kind);
        printf("info: %s splits on 1..%d threads: %.2f s\n", kind_name(kind), MAX_THREADS,
               (double)(ciot_now_ns() - ts) / 1e9);
        test_spans(kind);
        test_priority_and_binding(kind);
        test_stop_signals(kind);
        test_oversubscribed(kind, kind == CIOT_POOL_PERSISTENT ? 200 : 10, 0);
        if (kind == CIOT_POOL_PERSISTENT) test_oversubscribed(kind, 10, 1 << 14);
        test_create_destroy(kind, 200);
    }
    printf("info: %.2f s\n", (double)(ciot_now_ns() - t0) / 1e9);
    printf("%d passed, %d failed, 0 skipped\n", passed, failed);
    return failed != 0;
}
