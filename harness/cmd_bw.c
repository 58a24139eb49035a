/* ciot bw: the DRAM bandwidth probe over a thread sweep on the persistent pool; prints min / median /
 * max GB/s per kernel and thread count with the traffic each kernel counts, optionally as JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bigbuf.h"
#include "cli.h"
#include "commands.h"
#include "context.h"
#include "json.h"
#include "pool.h"
#include "probe_bw.h"
#include "topo.h"

enum { MAX_THREAD_COUNTS = 256, MAX_THREADS = 1024 };
static const size_t DEFAULT_SIZE = (size_t)1 << 30;
static const size_t MIN_SIZE = (size_t)64 << 10;

typedef struct {
    size_t size;
    int size_given;
    int threads[MAX_THREAD_COUNTS], n_threads;
    int reps;
    double min_rep_seconds;
    int kinds[CIOT_BW_N_KINDS], n_kinds;
    int pin, huge, priority;
    const char *json_path;
} bw_opts;

static void usage(FILE *f) {
    fprintf(f,
            "usage: ciot bw [options]\n"
            "  --size BYTES      buffer size, suffixes K/M/G/T are binary (1G = 2^30); default 1G or 4x the\n"
            "                    last-level cache, whichever is larger, within half the available memory.\n"
            "                    Copy uses half for each side.\n"
            "  --threads LIST    thread counts, e.g. 1,2 or 1-4 (default 1..cores)\n"
            "  --reps N          timed repetitions after a warm-up (default 5; at least 5 recommended)\n"
            "  --kernels LIST    any of read,write,copy (default all)\n"
            "  --ms N            shortest repetition in ms: whole passes repeat until it lasts N (default 50)\n"
            "  --no-pin          do not pin threads to cores\n"
            "  --no-huge         forbid transparent huge pages on the buffer (default: ask for them; in a VM\n"
            "                    4 KiB pages can cost a fifth of the read bandwidth in page walks)\n"
            "  --priority        raise the threads' priority (nice -5) against other processes\n"
            "  --json FILE       also write the results as JSON (a regular file via FILE.tmp.<pid>, renamed\n"
            "                    when complete; a device, FIFO or symbolic link is written through)\n");
}

static int bad(const char *fmt, const char *arg) {
    fprintf(stderr, "ciot bw: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (ciot bw --help)\n");
    return 2;
}

static int parse_kernels(const char *list, bw_opts *o) {
    char *copy = strdup(list), *save = NULL;
    o->n_kinds = 0;
    int ok = copy != NULL;
    for (char *w = copy ? strtok_r(copy, ",", &save) : NULL; ok && w; w = strtok_r(NULL, ",", &save)) {
        ciot_bw_kind k;
        if (ciot_bw_kind_parse(w, &k) != CIOT_OK || o->n_kinds == CIOT_BW_N_KINDS) ok = 0;
        else o->kinds[o->n_kinds++] = (int)k;
    }
    free(copy);
    return ok && o->n_kinds > 0;
}

/* Returns -1 when the options are fine, else the exit code. */
static int parse_args(int argc, char **argv, bw_opts *o) {
    *o = (bw_opts){.reps = 5, .min_rep_seconds = 0.05, .pin = 1, .huge = 1, .n_kinds = CIOT_BW_N_KINDS, .kinds = {0, 1, 2}};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        int takes_value = !strcmp(a, "--size") || !strcmp(a, "--threads") || !strcmp(a, "--reps") ||
                          !strcmp(a, "--kernels") || !strcmp(a, "--json") || !strcmp(a, "--ms");
        if (takes_value && !v) return bad("%s needs a value", a);
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--size")) {
            if (ciot_parse_size(v, &o->size) != CIOT_OK) return bad("--size '%s' is not a size (e.g. 512M, 1G)", v);
            o->size_given = 1;
        } else if (!strcmp(a, "--threads")) {
            if (ciot_parse_int_list(v, 1, MAX_THREADS, o->threads, MAX_THREAD_COUNTS, &o->n_threads) != CIOT_OK)
                return bad("--threads '%s' is not a list of thread counts from 1 to 1024 (e.g. 1,2 or 1-4)", v);
        } else if (!strcmp(a, "--reps")) {
            if (ciot_parse_int(v, 1, 1000000, &o->reps) != CIOT_OK) return bad("--reps '%s' is not a count >= 1", v);
        } else if (!strcmp(a, "--ms")) {
            int ms;
            if (ciot_parse_int(v, 0, 600000, &ms) != CIOT_OK) return bad("--ms '%s' is not a duration in ms", v);
            o->min_rep_seconds = ms / 1000.0;
        } else if (!strcmp(a, "--kernels")) {
            if (!parse_kernels(v, o)) return bad("--kernels '%s': the kernels are read, write, copy", v);
        } else if (!strcmp(a, "--json")) {
            o->json_path = v;
        } else if (!strcmp(a, "--no-pin")) {
            o->pin = 0;
        } else if (!strcmp(a, "--no-huge")) {
            o->huge = 0;
        } else if (!strcmp(a, "--priority")) {
            o->priority = 1;
        } else {
            return bad("unknown option '%s'", a);
        }
        if (takes_value) i++;
    }
    return -1;
}

/* Settles the buffer size against the memory available; returns -1 when fine, else the exit code. */
static int settle_size(bw_opts *o) {
    char b1[32], b2[32];
    size_t avail = ciot_mem_available();
    if (!o->size_given) { /* 1 GiB, or 4x the last-level cache when that is more, within half of memory */
        size_t llc = ciot_topo_llc_bytes(NULL);
        o->size = 4 * llc > DEFAULT_SIZE ? (4 * llc + (2u << 20) - 1) / (2u << 20) * (2u << 20) : DEFAULT_SIZE;
        if (avail && o->size > avail / 2) o->size = avail / 2 / (2u << 20) * (2u << 20);
    }
    if (o->size < MIN_SIZE) return bad("--size %s is too small (the minimum is 64K)",
                                       ciot_format_bytes(o->size, b1, sizeof b1));
    /* Leave a tenth of the available memory to everything else. */
    if (avail && o->size > avail / 10 * 9) {
        fprintf(stderr, "ciot bw: --size %s does not fit: %s available (MemAvailable)\n",
                ciot_format_bytes(o->size, b1, sizeof b1), ciot_format_bytes(avail, b2, sizeof b2));
        return 2;
    }
    return -1;
}

static void write_json(ciot_json *j, const bw_opts *o, const ciot_bw_result *res, int n_res,
                       const ciot_pool_info *infos, size_t llc, int llc_level, double huge_fraction) {
    ciot_json_begin_object(j);
    ciot_json_kv_string(j, "probe", "bw");
    ciot_json_kv_int(j, "schema", 1);
    ciot_json_kv_string(j, "rate_unit", "GB/s = 1e9 bytes per second of declared traffic");
    ciot_json_kv_int(j, "buffer_bytes", (long long)o->size);
    ciot_json_kv_bool(j, "huge_pages_requested", o->huge);
    ciot_json_key(j, "huge_page_fraction"); /* share of the buffer the kernel backed with huge pages */
    if (huge_fraction >= 0) ciot_json_fixed(j, huge_fraction, 3);
    else ciot_json_null(j);
    ciot_json_kv_int(j, "llc_bytes_total", (long long)llc);
    ciot_json_kv_int(j, "llc_level", llc_level);
    ciot_json_kv_int(j, "cores", ciot_topo_cores());
    ciot_json_kv_bool(j, "pin_requested", o->pin);
    ciot_json_kv_int(j, "reps", o->reps);
    ciot_json_kv_string(j, "impl", ciot_bw_impl_name());
#ifdef CIOT_COMPILER
    ciot_json_kv_string(j, "compiler", CIOT_COMPILER);
#endif
    ciot_context ctx;
    ciot_context_collect(&ctx);
    ciot_json_key(j, "context");
    ciot_json_begin_object(j);
    ciot_context_write(j, &ctx);
    ciot_json_end_object(j);
    ciot_json_key(j, "results");
    ciot_json_begin_array(j);
    for (int i = 0; i < n_res; i++) {
        const ciot_bw_result *r = &res[i];
        ciot_json_begin_object(j);
        ciot_json_kv_string(j, "kernel", ciot_bw_kind_name(r->kind));
        ciot_json_kv_int(j, "threads", r->threads);
        ciot_json_kv_string(j, "traffic", r->traffic);
        ciot_json_kv_int(j, "bytes_per_pass", (long long)r->bytes_per_pass);
        ciot_json_kv_int(j, "passes_per_rep", r->passes);
        ciot_json_kv_int(j, "reps", r->reps);
        ciot_json_kv_fixed(j, "min_gbs", r->min_gbs, 3);
        ciot_json_kv_fixed(j, "median_gbs", r->median_gbs, 3);
        ciot_json_kv_fixed(j, "max_gbs", r->max_gbs, 3);
        ciot_json_kv_bool(j, "pinned", infos[i].pinned);
        ciot_json_kv_string(j, "priority", infos[i].priority);
        ciot_json_end_object(j);
    }
    ciot_json_end_array(j);
    ciot_json_end_object(j);
}

/* Measures every kernel at every thread count, one persistent pool per count; returns the exit code. */
static int measure_sweep(const bw_opts *o, ciot_bw_result *res, ciot_pool_info *infos, double *huge_fraction) {
    char b1[32];
    void *buf = NULL;
    int step = 0, n_res = o->n_threads * o->n_kinds, rc = 0;
    for (int ti = 0; ti < o->n_threads && rc == 0; ti++) {
        ciot_pool_opts po = {.threads = o->threads[ti], .pin = o->pin, .raise_priority = o->priority};
        ciot_pool *pool;
        ciot_status st = ciot_pool_create(CIOT_POOL_PERSISTENT, &po, &pool);
        if (st != CIOT_OK) {
            fprintf(stderr, "ciot bw: cannot create a pool of %d threads: %s\n", po.threads, ciot_status_str(st));
            rc = 1;
            break;
        }
        /* One buffer for the whole sweep, first touched by the first pool's threads. */
        if (!buf && (st = ciot_bw_buffer_alloc(pool, o->size, o->huge, &buf)) != CIOT_OK) {
            fprintf(stderr, "ciot bw: cannot allocate %s: %s\n", ciot_format_bytes(o->size, b1, sizeof b1),
                    ciot_status_str(st));
            ciot_pool_destroy(pool);
            rc = 1;
            break;
        }
        if (ti == 0) *huge_fraction = ciot_bigbuf_huge_fraction(buf);
        for (int ki = 0; ki < o->n_kinds && rc == 0; ki++, step++) {
            ciot_bw_kind kind = (ciot_bw_kind)o->kinds[ki];
            fprintf(stderr, "ciot bw: [%d/%d] %s, %d thread%s\n", step + 1, n_res, ciot_bw_kind_name(kind),
                    po.threads, po.threads > 1 ? "s" : "");
            st = ciot_bw_measure_for(pool, kind, buf, o->size, o->reps, o->min_rep_seconds, &res[step]);
            ciot_pool_get_info(pool, &infos[step]);
            if (st != CIOT_OK) {
                fprintf(stderr, "ciot bw: measurement failed: %s\n", ciot_status_str(st));
                rc = 1;
            }
        }
        ciot_pool_destroy(pool);
    }
    if (buf) ciot_bw_buffer_free(buf, o->size);
    return rc;
}

static void print_table(const bw_opts *o, const ciot_bw_result *res, const ciot_pool_info *infos, int n_res,
                        size_t llc, double huge_fraction) {
    char b1[32], b2[32], pages[64];
    if (huge_fraction >= 0)
        snprintf(pages, sizeof pages, "huge pages %s, %.0f%% backed", o->huge ? "requested" : "forbidden",
                 100 * huge_fraction);
    else
        snprintf(pages, sizeof pages, "huge pages %s", o->huge ? "requested" : "forbidden");
    printf("# buffer %s (%s), LLC %s, inner loop %s, %s, priority %s, %d reps after a warm-up; "
           "GB/s = 1e9 B/s\n",
           ciot_format_bytes(o->size, b1, sizeof b1), pages,
           llc ? ciot_format_bytes(llc, b2, sizeof b2) : "unknown", ciot_bw_impl_name(),
           o->pin ? "pinned" : "not pinned", n_res ? infos[0].priority : "-", o->reps);
    printf("%-7s %7s %9s %11s %9s  %s\n", "kernel", "threads", "min GB/s", "median GB/s", "max GB/s", "traffic");
    for (int i = 0; i < n_res; i++)
        printf("%-7s %7d %9.2f %11.2f %9.2f  %s%s\n", ciot_bw_kind_name(res[i].kind), res[i].threads,
               res[i].min_gbs, res[i].median_gbs, res[i].max_gbs, res[i].traffic,
               o->pin && !infos[i].pinned ? " [pinning failed]" : "");
}

int ciot_cmd_bw(int argc, char **argv) {
    bw_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;
    if ((rc = settle_size(&o)) >= 0) return rc;
    if (o.n_threads == 0)
        for (int t = 1; t <= ciot_topo_cores() && t <= MAX_THREAD_COUNTS; t++) o.threads[o.n_threads++] = t;
    ciot_json *json = NULL;
    char why[CIOT_WHY_MAX];
    /* The output is checked, and its temporary file made, before the measurements. */
    if (o.json_path && ciot_json_create(o.json_path, &json, why, sizeof why) != CIOT_OK) {
        fprintf(stderr, "ciot bw: --json %s\n", why);
        return 2;
    }
    char b1[32], b2[32];
    int llc_level;
    size_t llc = ciot_topo_llc_bytes(&llc_level);
    if (llc && o.size < 4 * llc)
        fprintf(stderr, "ciot bw: warning: %s is less than 4x the last-level cache (L%d, %s in total, as hwloc "
                        "reports it); the figures may include cache hits\n",
                ciot_format_bytes(o.size, b1, sizeof b1), llc_level, ciot_format_bytes(llc, b2, sizeof b2));
    if (o.reps < 5) fprintf(stderr, "ciot bw: warning: %d reps; at least 5 are recommended\n", o.reps);

    int n_res = o.n_threads * o.n_kinds;
    double huge_fraction = -1;
    ciot_bw_result *res = calloc((size_t)n_res, sizeof *res);
    ciot_pool_info *infos = calloc((size_t)n_res, sizeof *infos);
    if (!res || !infos) {
        fprintf(stderr, "ciot bw: out of memory\n");
        rc = 1;
    } else {
        rc = measure_sweep(&o, res, infos, &huge_fraction);
    }
    if (rc == 0) print_table(&o, res, infos, n_res, llc, huge_fraction);
    if (json) {
        if (rc == 0) {
            write_json(json, &o, res, n_res, infos, llc, llc_level, huge_fraction);
            if (ciot_json_commit(json, why, sizeof why) != CIOT_OK) {
                fprintf(stderr, "ciot bw: --json %s\n", why);
                rc = 1;
            }
        } else {
            ciot_json_discard(json);
        }
    }
    free(res);
    free(infos);
    return rc;
}
