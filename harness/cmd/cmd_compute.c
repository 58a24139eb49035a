/* ciot compute: the peak multiply-accumulate rate (int8, and the token ops' fp32) of every instruction sequence this CPU has, over a
 * thread sweep on the persistent pool; prints GMAC/s and GOPS (2 ops per MAC), optionally as JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "commands.h"
#include "context.h"
#include "distinct_paths.h"
#include "json.h"
#include "opts.h"
#include "pool.h"
#include "probe_compute.h"
#include "stats.h"
#include "sweep.h"
#include "topo.h"

typedef struct {
    ciot_int_list threads;
    int reps, ms;
    int no_pin, priority, list;
    int families[CIOT_COMPUTE_N_FAMILIES], n_families;
    const char *families_arg, *json_path;
} compute_opts;

/* Returns -1 when the list is fine, else the exit code. The names are checked before what this CPU has,
 * so a misspelt list is reported the same way on every machine. */
static int parse_families(const ciot_cmdline *c, compute_opts *o) {
    char *copy = strdup(o->families_arg), *save = NULL;
    int rc = copy ? -1 : 1;
    o->n_families = 0;
    for (char *w = copy ? strtok_r(copy, ",", &save) : NULL; rc < 0 && w; w = strtok_r(NULL, ",", &save)) {
        ciot_compute_family f;
        int dup = 0;
        if (ciot_compute_family_parse(w, &f) != CIOT_OK) {
            char names[256];
            rc = ciot_opts_fail(c, "--families: '%s' is not one of %s", w, ciot_compute_family_names(", ", names, sizeof names));
            break;
        }
        for (int i = 0; i < o->n_families; i++) dup |= o->families[i] == (int)f;
        if (dup) rc = ciot_opts_fail(c, "--families: '%s' is named twice", w);
        else o->families[o->n_families++] = (int)f;
    }
    free(copy);
    for (int i = 0; rc < 0 && i < o->n_families; i++)
        if (!ciot_compute_available((ciot_compute_family)o->families[i]))
            rc = ciot_opts_fail(c, "--families: this CPU (or this build) has no '%s'",
                                ciot_compute_family_name((ciot_compute_family)o->families[i]));
    return rc;
}

static int parse_args(int argc, char **argv, compute_opts *o) {
    *o = (compute_opts){.reps = 5, .ms = 200};
    for (int f = 0; f < CIOT_COMPUTE_N_FAMILIES; f++)
        if (ciot_compute_available((ciot_compute_family)f)) o->families[o->n_families++] = f;
    char names[256], families_help[320];
    snprintf(families_help, sizeof families_help, "any of %s (default: all this CPU has)",
             ciot_compute_family_names(",", names, sizeof names));
    const ciot_opt opts[] = {
        {"--threads", CIOT_OPT_INT_LIST, &o->threads, 1, 1024, NULL, "LIST", "thread counts, e.g. 1,2 or 1-4 (default 1..cores)", NULL},
        {"--reps", CIOT_OPT_INT, &o->reps, 1, 1000000, NULL, "N", "timed repetitions after a warm-up (default 5; at least 5 recommended)", NULL},
        {"--families", CIOT_OPT_LIST, &o->families_arg, 0, 0, NULL, "LIST", families_help, NULL},
        {"--ms", CIOT_OPT_INT, &o->ms, 1, 600000, NULL, "N", "milliseconds per repetition (default 200)", NULL},
        {"--no-pin", CIOT_OPT_FLAG, &o->no_pin, 0, 0, NULL, NULL, "do not pin threads to cores", NULL},
        {"--priority", CIOT_OPT_FLAG, &o->priority, 0, 0, NULL, NULL, "raise the threads' priority (nice -5) against other processes", NULL},
        {"--json", CIOT_OPT_STRING, &o->json_path, 0, 0, NULL, "FILE", "also write the results as JSON", NULL},
        {"--list", CIOT_OPT_FLAG, &o->list, 0, 0, NULL, NULL,
         "measure nothing: one line per sequence, NAME<TAB>MACs per loop iteration (0: not built for this\n"
         "architecture)<TAB>available or unavailable<TAB>its instructions", NULL},
    };
    const ciot_cmdline c = {"compute", "[options]",
                            "Peak multiply-accumulate rate per instruction sequence this CPU has, one row each,\n"
                            "named for what it computes (avx2: int8 vpmaddubsw widened to int32 at every step;\n"
                            "avx2_i16: vpmaddubsw summed in int16; a _b32 row: its multiplies with PTQ1_0's fp32\n"
                            "step per 32 weights; fma32_: fp32 fused multiply-adds, f16fma_: the same with an\n"
                            "operand widened from fp16, the token ops' roofs), enough independent chains to hide\n"
                            "latency, over a thread sweep on the persistent pool.",
                            opts, (int)(sizeof opts / sizeof opts[0]), NULL, 0};
    int rc = ciot_opts_parse(&c, argc, argv, NULL, NULL);
    if (rc < 0 && o->families_arg) rc = parse_families(&c, o);
    return rc;
}

static void write_json(ciot_json *j, const compute_opts *o, const ciot_compute_result *res, int n_res,
                       const ciot_pool_info *infos, ciot_context *ctx) {
    ciot_json_begin_object(j);
    ciot_json_kv_string(j, "probe", "compute");
    ciot_json_kv_int(j, "schema", 1);
    ciot_json_kv_string(j, "rate_unit", "GMAC/s = 1e9 multiply-accumulates per second (int8, or fp32 where a row's operands say); GOPS = 2 x GMAC/s");
    ciot_json_kv_int(j, "cores", ciot_topo_cores());
    ciot_json_kv_bool(j, "pin_requested", !o->no_pin);
    ciot_json_kv_int(j, "reps", o->reps);
#ifdef CIOT_COMPILER
    ciot_json_kv_string(j, "compiler", CIOT_COMPILER);
#endif
    ciot_sweep_json_results(j, ctx);
    for (int i = 0; i < n_res; i++) {
        const ciot_compute_result *r = &res[i];
        ciot_json_begin_object(j);
        ciot_json_kv_string(j, "family", ciot_compute_family_name(r->family));
        ciot_json_kv_string(j, "instruction", ciot_compute_instruction(r->family));
        ciot_json_kv_string(j, "operands", ciot_compute_fp32(r->family) ? "fp32" : "int8");
        ciot_json_kv_int(j, "threads", r->threads);
        ciot_json_kv_int(j, "macs_per_iter", r->macs_per_iter);
        ciot_json_kv_int(j, "iters_per_thread", (long long)r->iters);
        ciot_json_kv_int(j, "reps", r->reps);
        ciot_json_kv_fixed(j, "min_gmacs", r->min_gmacs, 3);
        ciot_json_kv_fixed(j, "median_gmacs", r->median_gmacs, 3);
        ciot_json_kv_fixed(j, "max_gmacs", r->max_gmacs, 3);
        ciot_json_kv_fixed(j, "min_gops", 2 * r->min_gmacs, 3);
        ciot_json_kv_fixed(j, "median_gops", 2 * r->median_gmacs, 3);
        ciot_json_kv_fixed(j, "max_gops", 2 * r->max_gmacs, 3);
        ciot_json_kv_bool(j, "low_outlier", ciot_low_outlier(r->min_gmacs, r->median_gmacs));
        ciot_json_kv_bool(j, "pinned", infos[i].pinned);
        char note[128];
        ciot_json_kv_string(j, "pinning", ciot_pinning_note(!o->no_pin, infos[i].pinned, r->threads, note, sizeof note));
        ciot_json_kv_string(j, "priority", infos[i].priority);
        ciot_json_end_object(j);
    }
    ciot_json_end_array(j);
    ciot_json_end_object(j);
}

typedef struct {
    const compute_opts *o;
    ciot_compute_result *res;
} compute_sweep;

static const char *family_name(int item, void *ctx) {
    return ciot_compute_family_name((ciot_compute_family)((compute_sweep *)ctx)->o->families[item]);
}

static ciot_status measure_family(ciot_pool *pool, int item, int step, void *ctx) {
    const compute_sweep *s = ctx;
    return ciot_compute_measure(pool, (ciot_compute_family)s->o->families[item], s->o->ms / 1000.0, s->o->reps,
                                &s->res[step]);
}

/* Measures every family at every thread count, one persistent pool per count; returns the exit code. */
static int measure_sweep(const compute_opts *o, ciot_compute_result *res, ciot_pool_info *infos) {
    compute_sweep s = {o, res};
    const ciot_sweep sweep = {"compute", &o->threads, o->n_families, !o->no_pin, o->priority, &s, NULL,
                              family_name, measure_family, infos};
    return ciot_sweep_run(&sweep);
}

static void print_table(const compute_opts *o, const ciot_compute_result *res, const ciot_pool_info *infos,
                        int n_res) {
    char note[128];
    printf("# multiply-accumulate peak (int8; fp32 in the fma32_ and f16fma_ rows), priority %s, %d reps after a warm-up; GOPS = 2 x GMAC/s\n",
           n_res ? infos[0].priority : "-", o->reps);
    printf("%-11s %7s %11s %13s %11s %12s %17s  %-12s %s\n", "family", "threads", "min GMAC/s", "median GMAC/s",
           "max GMAC/s", "median GOPS", "GMAC/s per thread", "instruction", "pinning");
    int outliers = 0;
    for (int i = 0; i < n_res; i++) {
        const int low = ciot_low_outlier(res[i].min_gmacs, res[i].median_gmacs);
        outliers += low;
        printf("%-11s %7d %11.1f %13.1f %11.1f %12.1f %17.1f  %-12s %s%s\n", ciot_compute_family_name(res[i].family),
               res[i].threads, res[i].min_gmacs, res[i].median_gmacs, res[i].max_gmacs, 2 * res[i].median_gmacs,
               res[i].median_gmacs / res[i].threads, ciot_compute_instruction(res[i].family),
               ciot_pinning_note(!o->no_pin, infos[i].pinned, res[i].threads, note, sizeof note), low ? "  OUTLIER" : "");
    }
    if (outliers) printf("OUTLIER: the min is %s; the median stands.\n", CIOT_OUTLIER_FLAG);
}

/* --list: what each family's loop declares it does per iteration, whether or not this CPU runs it (the
 * tests hold the compiled loops to these counts). */
static int list_families(void) {
    for (int f = 0; f < CIOT_COMPUTE_N_FAMILIES; f++)
        printf("%s\t%d\t%s\t%s\n", ciot_compute_family_name((ciot_compute_family)f),
               ciot_compute_macs_per_iter((ciot_compute_family)f),
               ciot_compute_available((ciot_compute_family)f) ? "available" : "unavailable",
               ciot_compute_instruction((ciot_compute_family)f));
    return 0;
}

int ciot_cmd_compute(int argc, char **argv) {
    compute_opts o;
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;
    if (o.list) return list_families();
    /* no input files: the list is there so that one added later is checked against the output */
    const ciot_named_path files[] = {{"--json", o.json_path, CIOT_PATH_OUTPUT, NULL}};
    if ((rc = ciot_distinct_paths("compute", files, 1)) >= 0) return rc;
    ciot_json *json = NULL;
    char why[CIOT_WHY_MAX];
    /* The output is checked, and its temporary file made, before the measurements. */
    if (o.json_path && ciot_json_create(o.json_path, &json, why, sizeof why) != CIOT_OK) {
        fprintf(stderr, "ciot compute: --json %s\n", why);
        return 2;
    }
    if (o.n_families == 0) {
        ciot_json_discard(json);
        char names[256];
        fprintf(stderr, "ciot compute: this CPU (or this build) has none of the compute families (%s)\n",
                ciot_compute_family_names(", ", names, sizeof names));
        return 2;
    }
    if (o.threads.n == 0) ciot_sweep_default_threads(&o.threads);
    for (int i = 0; i < o.threads.n; i++)
        if (ciot_warn_oversubscribed("compute", o.threads.v[i])) break;
    ciot_context ctx;
    ciot_context_collect(&ctx);
    if (o.reps < 5) fprintf(stderr, "ciot compute: warning: %d reps; at least 5 are recommended\n", o.reps);

    int n_res = o.threads.n * o.n_families;
    ciot_compute_result *res = calloc((size_t)n_res, sizeof *res);
    ciot_pool_info *infos = calloc((size_t)n_res, sizeof *infos);
    if (!res || !infos) {
        fprintf(stderr, "ciot compute: out of memory\n");
        rc = 1;
    } else {
        rc = measure_sweep(&o, res, infos);
    }
    if (rc == 0) print_table(&o, res, infos, n_res);
    if (json && rc == 0) write_json(json, &o, res, n_res, infos, &ctx);
    rc = ciot_sweep_json_end("compute", json, rc);
    free(res);
    free(infos);
    return rc;
}
