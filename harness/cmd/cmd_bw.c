/* ciot bw: the DRAM bandwidth probe over a thread sweep on the persistent pool; prints min / median /
 * max GB/s per kernel and thread count with the traffic each kernel counts, optionally as JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bigbuf.h"
#include "cli.h"
#include "commands.h"
#include "context.h"
#include "distinct_paths.h"
#include "json.h"
#include "measure.h"
#include "opts.h"
#include "place_opts.h"
#include "pool.h"
#include "prefetch.h"
#include "probe_bw.h"
#include "sweep.h"
#include "topo.h"

typedef struct {
    size_t size;
    int size_given;
    ciot_int_list threads;
    int reps, ms;
    int kinds[CIOT_BW_N_KINDS], n_kinds;
    int no_pin, no_huge, priority, prefetch_off;
    size_t prefetch;
    const char *kernels, *json_path;
    ciot_place_args place;
    int threads_given;
} bw_opts;

/* One sweep of the run: the whole run, or under --place domains one domain alone and then all of them. */
typedef struct {
    char label[32];             /* "" outside --place domains; a domain's name, or "all" */
    char cpus[256];
    ciot_place_policy policy;
    ciot_int_list threads;
} bw_phase;

/* The results of every phase, per step: the pool's info, the PUs its threads ran on, its phase's label. */
typedef struct {
    const ciot_bw_result *res;
    const ciot_pool_info *infos;
    const int *pus;             /* CIOT_PLACE_MAX_THREADS per step */
    const char *const *labels;
    int n;
} bw_out;

static int parse_kernels(const ciot_cmdline *c, bw_opts *o) {
    char *copy = strdup(o->kernels), *save = NULL;
    int rc = copy ? -1 : 1;
    o->n_kinds = 0;
    for (char *w = copy ? strtok_r(copy, ",", &save) : NULL; rc < 0 && w; w = strtok_r(NULL, ",", &save)) {
        ciot_bw_kind k;
        int dup = 0;
        for (int i = 0; i < o->n_kinds; i++) dup |= ciot_bw_kind_parse(w, &k) == CIOT_OK && o->kinds[i] == (int)k;
        if (ciot_bw_kind_parse(w, &k) != CIOT_OK || dup)
            rc = ciot_opts_fail(c, "--kernels '%s': the kernels are read, write, copy, update, copy_nt, each at most once", o->kernels);
        else
            o->kinds[o->n_kinds++] = (int)k;
    }
    free(copy);
    return rc;
}

/* Returns -1 when the options are fine, else the exit code. */
static int parse_args(int argc, char **argv, bw_opts *o) {
    *o = (bw_opts){.reps = 5, .ms = 50, .n_kinds = CIOT_BW_N_KINDS, .kinds = {0, 1, 2, 3, 4}};
    const ciot_opt opts[] = {
        {"--size", CIOT_OPT_SIZE, &o->size, 64 << 10, 1e18, NULL, "BYTES",
         "buffer size, K/M/G/T binary (1G = 2^30); default max(4 x LLC, 1G) within half the\n"
         "available memory; copy uses half for each side", &o->size_given},
        {"--threads", CIOT_OPT_INT_LIST, &o->threads, 1, 1024, NULL, "LIST", "thread counts, e.g. 1,2 or 1-4 (default 1..cores)", NULL},
        {"--reps", CIOT_OPT_INT, &o->reps, 1, 1000000, NULL, "N", "timed repetitions after a warm-up (default 5; at least 5 recommended)", NULL},
        {"--kernels", CIOT_OPT_LIST, &o->kernels, 0, 0, NULL, "LIST", "any of read,write,copy,update,copy_nt (default all)", NULL},
        {"--ms", CIOT_OPT_INT, &o->ms, 0, 600000, NULL, "N", "shortest repetition in ms: whole passes repeat until it lasts N (default 50)", NULL},
        {"--prefetch", CIOT_OPT_CHOICE, &o->prefetch_off, 0, 0, "on|off", "on|off",
         "read and update: with the kernels' software prefetch and without it, in one address\n"
         "stream and in 4 side by side, the fastest counting, as the ruler of ciot bench and\n"
         "replay (default on; off: without prefetch only, still in 1 and 4 streams)", NULL},
        {"--no-pin", CIOT_OPT_FLAG, &o->no_pin, 0, 0, NULL, NULL, "do not pin threads to cores", NULL},
        {"--no-huge", CIOT_OPT_FLAG, &o->no_huge, 0, 0, NULL, NULL,
         "forbid transparent huge pages on the buffer (default: ask for them; in a VM\n"
         "4 KiB pages can cost a fifth of the read bandwidth in page walks)", NULL},
        {"--priority", CIOT_OPT_FLAG, &o->priority, 0, 0, NULL, NULL, "raise the threads' priority (nice -5) against other processes", NULL},
        {"--json", CIOT_OPT_STRING, &o->json_path, 0, 0, NULL, "FILE", "also write the results as JSON", NULL},
        CIOT_PLACE_OPTS(&o->place),
    };
    const ciot_cmdline c = {"bw", "[options]", "The DRAM probe: read (the ceiling kernels are compared with), write, copy, update (in\n"
                            "place) and copy_nt (non-temporal stores), each labelled with the traffic it counts, over\n"
                            "a thread sweep on the persistent pool. --place domains: the read ceiling of each domain\n"
                            "alone (a thread per core), then of all of them together.",
                            opts, (int)(sizeof opts / sizeof opts[0]), NULL, 0};
    int rc = ciot_opts_parse(&c, argc, argv, NULL, NULL);
    if (rc < 0 && o->kernels) rc = parse_kernels(&c, o);
    o->prefetch = o->prefetch_off ? 0 : CIOT_PREFETCH_DEFAULT;
    return rc;
}

/* Settles the buffer size against the memory available; returns -1 when fine, else the exit code. */
static int settle_size(bw_opts *o) {
    char b1[32], b2[32];
    size_t avail = ciot_mem_available();
    if (!o->size_given) { /* max(4 x LLC, 1 GiB), within half of memory */
        o->size = ciot_cold_bytes();
        if (avail && o->size > avail / 2) o->size = avail / 2 / (2u << 20) * (2u << 20);
    }
    /* Leave a tenth of the available memory to everything else. */
    if (avail && o->size > ciot_mem_cap(avail)) {
        fprintf(stderr, "ciot bw: --size %s does not fit: %s available (MemAvailable)\n",
                ciot_format_bytes(o->size, b1, sizeof b1), ciot_format_bytes(avail, b2, sizeof b2));
        return 2;
    }
    return -1;
}

/* "pus": the PU each thread of step i ran on (null where unknown). */
static void write_pus(ciot_json *j, const bw_out *out, int i) {
    ciot_json_key(j, "pus");
    ciot_json_begin_array(j);
    for (int th = 0; th < out->res[i].threads && th < CIOT_PLACE_MAX_THREADS; th++) {
        const int pu = out->pus[(size_t)i * CIOT_PLACE_MAX_THREADS + th];
        if (pu >= 0) ciot_json_int(j, pu);
        else ciot_json_null(j);
    }
    ciot_json_end_array(j);
}

/* "domains": under --place domains, each domain's read ceiling alone and all together (the read rows); else null. */
static void write_domains(ciot_json *j, const bw_out *out) {
    ciot_json_key(j, "domains");
    if (!out->n || !out->labels[0][0]) return ciot_json_null(j);
    ciot_json_begin_array(j);
    for (int i = 0; i < out->n; i++) {
        if (out->res[i].kind != CIOT_BW_READ) continue;
        ciot_json_begin_object(j);
        ciot_json_kv_string(j, "domain", out->labels[i]);
        ciot_json_kv_int(j, "threads", out->res[i].threads);
        write_pus(j, out, i);
        ciot_json_kv_fixed(j, "read_min_gbs", out->res[i].min_gbs, 3);
        ciot_json_kv_fixed(j, "read_median_gbs", out->res[i].median_gbs, 3);
        ciot_json_kv_fixed(j, "read_max_gbs", out->res[i].max_gbs, 3);
        ciot_json_end_object(j);
    }
    ciot_json_end_array(j);
}

static void write_json(ciot_json *j, const bw_opts *o, const bw_out *out, ciot_context *ctx, double huge_fraction) {
    const ciot_bw_result *res = out->res;
    const ciot_pool_info *infos = out->infos;
    const int n_res = out->n;
    char note[128];
    ciot_json_begin_object(j);
    ciot_json_kv_string(j, "probe", "bw");
    ciot_json_kv_int(j, "schema", 2);
    ciot_json_kv_string(j, "rate_unit", "GB/s = 1e9 bytes per second of declared traffic");
    ciot_json_kv_int(j, "buffer_bytes", (long long)o->size);
    ciot_json_kv_bool(j, "cache_resident", ciot_cache_resident(o->size));
    ciot_json_kv_bool(j, "huge_pages_requested", !o->no_huge);
    ciot_json_key(j, "huge_page_fraction"); /* share of the buffer the kernel backed with huge pages */
    if (huge_fraction >= 0) ciot_json_fixed(j, huge_fraction, 3);
    else ciot_json_null(j);
    ciot_json_kv_int(j, "prefetch_bytes", (long long)o->prefetch);
    ciot_json_kv_string(j, "prefetch_hint", o->prefetch ? CIOT_PREFETCH_HINT : "none");
    ciot_json_kv_string(j, "probe_plans", CIOT_BW_PLANS_TEXT);
    ciot_json_kv_int(j, "llc_bytes_total", (long long)ctx->llc_bytes);
    ciot_json_kv_int(j, "llc_level", ctx->llc_level);
    ciot_json_kv_int(j, "cores", ciot_topo_cores());
    ciot_json_kv_bool(j, "pin_requested", !o->no_pin);
    ciot_json_kv_int(j, "reps", o->reps);
    ciot_json_kv_string(j, "impl", ciot_bw_impl_name());
    ciot_json_kv_string(j, "place", ciot_place_policy_of(&o->place) == CIOT_PLACE_DEFAULT ? "default"
                                    : (const char *[]){"compact", "spread", "domains"}[ciot_place_policy_of(&o->place) - 1]);
    ciot_json_kv_string(j, "cpus", o->place.cpus);
    write_domains(j, out);
    ciot_sweep_json_results(j, ctx);
    for (int i = 0; i < n_res; i++) {
        const ciot_bw_result *r = &res[i];
        ciot_json_begin_object(j);
        ciot_json_kv_string(j, "kernel", ciot_bw_kind_name(r->kind));
        ciot_json_kv_int(j, "threads", r->threads);
        ciot_json_kv_string(j, "traffic", r->traffic);
        ciot_json_kv_int(j, "bytes_per_pass", (long long)r->bytes_per_pass);
        ciot_json_kv_int(j, "passes_per_rep", r->passes);
        ciot_json_kv_int(j, "reps", r->reps);
        ciot_json_kv_int(j, "prefetch_bytes", (long long)r->prefetch);
        ciot_json_kv_fixed(j, "min_gbs", r->min_gbs, 3);
        ciot_json_kv_fixed(j, "median_gbs", r->median_gbs, 3);
        ciot_json_kv_fixed(j, "max_gbs", r->max_gbs, 3);
        ciot_json_kv_bool(j, "low_outlier", ciot_low_outlier(r->min_gbs, r->median_gbs));
        ciot_json_kv_bool(j, "pinned", infos[i].pinned);
        ciot_json_kv_string(j, "pinning", ciot_pinning_note(!o->no_pin, infos[i].pinned, r->threads, note, sizeof note));
        ciot_json_kv_string(j, "priority", infos[i].priority);
        ciot_json_kv_string(j, "domain", out->labels[i][0] ? out->labels[i] : NULL);
        write_pus(j, out, i);
        ciot_json_end_object(j);
    }
    ciot_json_end_array(j);
    ciot_json_end_object(j);
}

typedef struct {
    const bw_opts *o;
    ciot_bw_result *res;
    void *buf;
    double *huge_fraction;
    int *pus;                   /* per step, CIOT_PLACE_MAX_THREADS: the PU each thread ran on (-1 unknown) */
} bw_sweep;

/* One buffer for the whole sweep, first touched by the first pool's threads. */
static int first_touch(ciot_pool *pool, int thread_index, void *ctx) {
    bw_sweep *s = ctx;
    char b1[32];
    ciot_status st;
    if (!s->buf && (st = ciot_bw_buffer_alloc(pool, s->o->size, !s->o->no_huge, &s->buf)) != CIOT_OK) {
        fprintf(stderr, "ciot bw: cannot allocate %s: %s\n", ciot_format_bytes(s->o->size, b1, sizeof b1),
                ciot_status_str(st));
        return 1;
    }
    if (thread_index == 0) *s->huge_fraction = ciot_bigbuf_huge_fraction(s->buf);
    for (int k = 0; k < s->o->n_kinds; k++)
        for (int th = 0; th < ciot_pool_threads(pool); th++)
            s->pus[(thread_index * s->o->n_kinds + k) * CIOT_PLACE_MAX_THREADS + th] = ciot_place_ran_on(th);
    return 0;
}

static const char *kind_name(int item, void *ctx) {
    return ciot_bw_kind_name((ciot_bw_kind)((bw_sweep *)ctx)->o->kinds[item]);
}

static ciot_status measure_kind(ciot_pool *pool, int item, int step, void *ctx) {
    bw_sweep *s = ctx;
    const bw_opts *o = s->o;
    return ciot_bw_measure_for(pool, (ciot_bw_kind)o->kinds[item], s->buf, o->size, o->reps, o->ms / 1000.0,
                               o->prefetch, &s->res[step]);
}

/* Measures every kernel at every thread count, one persistent pool per count; returns the exit code. */
static int measure_sweep(const bw_opts *o, const ciot_int_list *threads, ciot_bw_result *res, ciot_pool_info *infos,
                         double *huge_fraction, int *pus) {
    bw_sweep s = {o, res, NULL, huge_fraction, pus};
    const ciot_sweep sweep = {"bw", threads, o->n_kinds, !o->no_pin, o->priority, &s, first_touch, kind_name,
                              measure_kind, infos};
    const int rc = ciot_sweep_run(&sweep);
    if (s.buf) ciot_bw_buffer_free(s.buf, o->size);
    return rc;
}

static void print_table(const bw_opts *o, const bw_out *out, size_t llc, double huge_fraction) {
    const ciot_bw_result *res = out->res;
    const ciot_pool_info *infos = out->infos;
    const int n_res = out->n, domains = n_res && out->labels[0][0];
    char b1[32], b2[32], pages[64], note[128];
    if (huge_fraction >= 0)
        snprintf(pages, sizeof pages, "huge pages %s, %.0f%% backed", o->no_huge ? "forbidden" : "requested",
                 100 * huge_fraction);
    else
        snprintf(pages, sizeof pages, "huge pages %s", o->no_huge ? "forbidden" : "requested");
    printf("# buffer %s (%s%s), LLC %s, inner loop %s, prefetch %s, " CIOT_BW_PLANS_TEXT
           ", priority %s, %d reps after a warm-up; GB/s = 1e9 B/s\n",
           ciot_format_bytes(o->size, b1, sizeof b1), pages, ciot_cache_resident(o->size) ? "; " CIOT_CACHE_FLAG : "",
           llc ? ciot_format_bytes(llc, b2, sizeof b2) : "unknown", ciot_bw_impl_name(),
           o->prefetch ? "on (" CIOT_PREFETCH_TEXT ")" : "off", n_res ? infos[0].priority : "-", o->reps);
    if (domains) printf("%-12s ", "domain");
    printf("%-7s %7s %9s %11s %9s  %-45s %s\n", "kernel", "threads", "min GB/s", "median GB/s", "max GB/s", "traffic",
           "pinning");
    int outliers = 0;
    for (int i = 0; i < n_res; i++) {
        const int low = ciot_low_outlier(res[i].min_gbs, res[i].median_gbs);
        outliers += low;
        if (domains) printf("%-12s ", out->labels[i]);
        printf("%-7s %7d %9.2f %11.2f %9.2f  %-45s %s%s\n", ciot_bw_kind_name(res[i].kind), res[i].threads,
               res[i].min_gbs, res[i].median_gbs, res[i].max_gbs, res[i].traffic,
               ciot_pinning_note(!o->no_pin, infos[i].pinned, res[i].threads, note, sizeof note), low ? "  OUTLIER" : "");
    }
    if (outliers) printf("OUTLIER: the min is %s; the median stands.\n", CIOT_OUTLIER_FLAG);
}

enum { MAX_PHASES = CIOT_PLACE_MAX_DOMAINS + 1 };

/* The run's sweeps: one over --threads; under --place domains each domain (within --cpus) alone at a thread per
 * core, then all of them at a thread per core of each. */
static int make_phases(const bw_opts *o, bw_phase *ph) {
    const ciot_place_policy p = ciot_place_policy_of(&o->place);
    ph[0] = (bw_phase){"", "", p, o->threads};
    snprintf(ph[0].cpus, sizeof ph[0].cpus, "%s", o->place.cpus ? o->place.cpus : "");
    hwloc_topology_t t;
    if (p != CIOT_PLACE_DOMAINS || ciot_topo_get(&t) != CIOT_OK) return 1;
    hwloc_bitmap_t allowed = NULL, set = hwloc_bitmap_alloc();
    char why[256];
    if (o->place.cpus && ciot_place_cpus(t, o->place.cpus, &allowed, why, sizeof why) != CIOT_OK) return 1;
    ciot_domain d[CIOT_PLACE_MAX_DOMAINS];
    const char *level;
    const int nd = ciot_place_domains(t, d, CIOT_PLACE_MAX_DOMAINS, &level);
    int n = 0, all = 0;
    for (int i = 0; i < nd; i++) {
        hwloc_bitmap_copy(set, d[i].pus);
        if (allowed) hwloc_bitmap_and(set, set, allowed);
        const int cores = hwloc_get_nbobjs_inside_cpuset_by_type(t, set, HWLOC_OBJ_CORE);
        if (hwloc_bitmap_iszero(set)) continue;   /* check_phases refuses it */
        bw_phase *q = &ph[n++];
        *q = (bw_phase){"", "", CIOT_PLACE_COMPACT, {{cores > 0 ? cores : 1}, 1}};
        snprintf(q->label, sizeof q->label, "%s", d[i].name);
        hwloc_bitmap_list_snprintf(q->cpus, sizeof q->cpus, set);
        all += q->threads.v[0];
    }
    /* all together: a thread per core of every domain, as each ran alone */
    ph[n] = (bw_phase){"all", "", CIOT_PLACE_COMPACT, {{all > 0 ? all : 1}, 1}};
    snprintf(ph[n].cpus, sizeof ph[n].cpus, "%s", o->place.cpus ? o->place.cpus : "");
    ciot_place_free(d, nd);
    hwloc_bitmap_free(set), hwloc_bitmap_free(allowed);
    return n + 1;
}

/* Every phase's placement and thread counts checked before anything is measured; -1, or 2 after one line. */
static int check_phases(const bw_opts *o, const bw_phase *ph, int n) {
    char why[512];
    if (ciot_place_policy_of(&o->place) != CIOT_PLACE_DEFAULT && o->no_pin)
        return ciot_say("bw", "--cpus and --place pin the threads: they do not go with --no-pin"), 2;
    if (ciot_place_policy_of(&o->place) == CIOT_PLACE_DOMAINS && o->threads_given)
        return ciot_say("bw", "--threads does not go with --place domains: each domain runs a thread per core"), 2;
    /* a domain --cpus leaves empty is refused as --place domains refuses it */
    if (ph[n - 1].label[0] && (ciot_place_set(CIOT_PLACE_DOMAINS, ph[n - 1].cpus, why, sizeof why) != CIOT_OK ||
                               ciot_place_check(CIOT_PLACE_MAX_DOMAINS, why, sizeof why) != CIOT_OK) &&
        strstr(why, "empty"))
        return ciot_say("bw", "%s", why), 2;
    for (int i = 0; i < n; i++) {
        if (ciot_place_set(ph[i].policy, ph[i].cpus, why, sizeof why) != CIOT_OK) return ciot_say("bw", "%s", why), 2;
        for (int k = 0; k < ph[i].threads.n; k++)
            if (ciot_place_check(ph[i].threads.v[k], why, sizeof why) != CIOT_OK) return ciot_say("bw", "%s", why), 2;
    }
    return -1;
}

/* Each phase's sweep into its slice of the results; the exit code. */
static int measure_phases(const bw_opts *o, const bw_phase *ph, int n, ciot_bw_result *res, ciot_pool_info *infos,
                          double *huge_fraction, int *pus, const char **labels) {
    char why[512];
    int at = 0, rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        ciot_place_set(ph[i].policy, ph[i].cpus, why, sizeof why);
        if (ph[i].label[0]) fprintf(stderr, "ciot bw: domain %s (PUs %s)\n", ph[i].label, ph[i].cpus[0] ? ph[i].cpus : "all");
        rc = measure_sweep(o, &ph[i].threads, res + at, infos + at, huge_fraction, pus + (size_t)at * CIOT_PLACE_MAX_THREADS);
        for (int k = 0; k < ph[i].threads.n * o->n_kinds; k++) labels[at + k] = ph[i].label;
        at += ph[i].threads.n * o->n_kinds;
    }
    return rc;
}

int ciot_cmd_bw(int argc, char **argv) {
    bw_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;
    if ((rc = settle_size(&o)) >= 0) return rc;
    o.threads_given = o.threads.n > 0;
    if (o.threads.n == 0) ciot_sweep_default_threads(&o.threads);
    /* --place domains asks for the read ceilings: the other kinds only when --kernels names them */
    if (ciot_place_policy_of(&o.place) == CIOT_PLACE_DOMAINS && !o.kernels) o.n_kinds = 1, o.kinds[0] = CIOT_BW_READ;
    static bw_phase phases[MAX_PHASES];
    const int n_phases = make_phases(&o, phases);
    if ((rc = check_phases(&o, phases, n_phases)) >= 0) return rc;
    /* no input files: the list is there so that one added later is checked against the output */
    const ciot_named_path files[] = {{"--json", o.json_path, CIOT_PATH_OUTPUT, NULL}};
    if ((rc = ciot_distinct_paths("bw", files, 1)) >= 0) return rc;
    ciot_json *json = NULL;
    char why[CIOT_WHY_MAX];
    /* The output is checked, and its temporary file made, before the measurements. */
    if (o.json_path && ciot_json_create(o.json_path, &json, why, sizeof why) != CIOT_OK) {
        fprintf(stderr, "ciot bw: --json %s\n", why);
        return 2;
    }
    ciot_context ctx;
    ciot_context_collect(&ctx);
    char b1[32], b2[32];
    if (ciot_cache_resident(o.size))
        fprintf(stderr, "ciot bw: warning: %s is less than 4x the last-level cache (%s, %s); the figures may "
                        "include cache hits\n",
                ciot_format_bytes(o.size, b1, sizeof b1), ctx.llc_source, ciot_format_bytes(ctx.llc_bytes, b2, sizeof b2));
    if (o.reps < 5) fprintf(stderr, "ciot bw: warning: %d reps; at least 5 are recommended\n", o.reps);
    for (int i = 0; i < o.threads.n; i++)
        if (ciot_warn_oversubscribed("bw", o.threads.v[i])) break;

    int n_res = 0;
    for (int i = 0; i < n_phases; i++) n_res += phases[i].threads.n * o.n_kinds;
    double huge_fraction = -1;
    ciot_bw_result *res = calloc((size_t)n_res, sizeof *res);
    ciot_pool_info *infos = calloc((size_t)n_res, sizeof *infos);
    int *pus = malloc((size_t)n_res * CIOT_PLACE_MAX_THREADS * sizeof *pus);
    const char **labels = calloc((size_t)n_res, sizeof *labels);
    if (!res || !infos || !pus || !labels) {
        fprintf(stderr, "ciot bw: out of memory\n");
        rc = 1;
    } else {
        rc = measure_phases(&o, phases, n_phases, res, infos, &huge_fraction, pus, labels);
    }
    const bw_out out = {res, infos, pus, labels, n_res};
    if (rc == 0) print_table(&o, &out, ctx.llc_bytes, huge_fraction);
    if (json && rc == 0) write_json(json, &o, &out, &ctx, huge_fraction);
    rc = ciot_sweep_json_end("bw", json, rc);
    free(res), free(infos), free(pus), free(labels);
    return rc;
}
